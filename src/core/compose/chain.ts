import { derived } from '../build/derived.js';
import type { PackFile } from '../build/pack-file.js';
import type { Snapshot } from '../build/snapshot-types.js';
import type { LayerDef, LayerSource } from '../pack/manifest.js';
import { normalisePackPath } from '../pack/pack-path.js';
import { hiddenAllowed } from '../pack/select.js';
import { type Diagnostic, error, warning } from '../text/diagnostics.js';
import { didYouMean, knownList } from '../text/suggest.js';
import { isBlank, utf8Length } from '../text/text.js';
import { isPackFolder, misnamedFolder, missingFolder } from './chain-folders.js';
import { fileAt, type LayerEnv, pathParts, placeholderValue } from './env.js';
import { lazyHash, SliceHash } from './lazy-hash.js';
import { cutToBudget, type RawFile, trimText } from './text-cut.js';
import type { LayerPart, LayerResult } from './types.js';

/**
 * A chain layer: for each folder from the pack root down to the filled `path`, the first
 * of `files` that exists. Each file's text (raw bytes for `raw:` files) is cut to the budget
 * still left, decoded lossily, kept when not blank, and the budget shrinks by the bytes
 * kept; the kept texts are joined by `join`. Every file is a part with its own range.
 */
export function resolveChain(
  env: LayerEnv,
  layer: LayerDef,
  source: Extract<LayerSource, { kind: 'chain' }>,
  base: LayerResult,
  budget: number | undefined,
): LayerResult {
  const template = pathParts(env, source.path);
  let path = template[0]!;
  for (let i = 1; i < template.length; i += 2) {
    const v = placeholderValue(env, template[i]!);
    if (v === undefined) {
      base.reason = 'no-value';
      base.placeholder = template[i]!;
      return base;
    }
    // An empty value names no folder further down: `--var cwd=` is the root, as
    // `path.relative(root, root)` writes it, never a chain of no files.
    path += (v === '' ? '.' : v) + template[i + 1]!;
  }
  const walk = folderAndWalk(env, layer, source, path);
  if (walk === undefined) {
    base.reason = 'missing';
    return base;
  }
  if (walk.blocked !== undefined) {
    env.diagnostics.push(
      warning(
        'READ_ERROR',
        `layer ${layer.id}: ${walk.blocked} cannot be looked at (a symlink loop, or a lookup the system refused); a walk that meets it reads no file of the chain, as a walker that fails there stops`,
        { file: walk.blocked },
      ),
    );
    base.reason = 'missing';
    return base;
  }
  const parts: LayerPart[] = [];
  let text = '';
  let kept = 0;
  let remaining = budget ?? Number.POSITIVE_INFINITY;
  let offset = 0;
  const joinBytes = utf8Length(source.join);
  if (walk.from > 0) base.chainRoot = walk.dir.slice(0, walk.from);
  for (const file of walk.files) {
    const part: LayerPart = { source: file.path, included: false };
    parts.push(part);
    if (remaining <= 0) {
      part.reason = 'budget';
      continue;
    }
    // The file's text; a raw file's budget counts its own bytes.
    let whole: string;
    let raw: RawFile | undefined;
    let bytes: number | undefined;
    let prompt = false;
    if (layer.trim === 'none' && file.isRaw && file.bodyOffset === 0) {
      raw = file;
      whole = file.text;
      bytes = file.textBytes;
    } else if (layer.trim === 'both') {
      whole = file.prompt;
      bytes = file.promptBytes;
      prompt = true;
    } else whole = trimText(file.text.slice(file.bodyOffset), layer.trim);
    const cut = cutToBudget(whole, bytes, raw, remaining);
    // A file whose text within the budget is blank is left out for want of budget
    // (said), one blank whole is left out as blank.
    if (isBlank(cut.text)) {
      part.reason = cut.truncatedFrom === undefined || isBlank(whole) ? 'empty' : 'budget';
      continue;
    }
    remaining -= cut.used;
    if (kept > 0) {
      offset += joinBytes;
      text += source.join;
    }
    kept++;
    part.included = true;
    part.start = offset;
    part.end = offset + cut.bytes;
    part.bytes = cut.bytes;
    if (cut.truncatedFrom !== undefined) {
      const start = env.charStart + text.length;
      env.joined ??= { text: '' };
      lazyHash(part, new SliceHash(env.joined, start, start + cut.text.length));
      part.truncatedFrom = cut.truncatedFrom;
      env.kept ??= new Map();
      env.kept.set(part, cut.used);
    } else if (prompt && cut.text === whole) {
      // The file's prompt as it stands: its hash is the file's, given when the layers are read.
      env.hashes.push(part, file);
    } else {
      const start = env.charStart + text.length;
      env.joined ??= { text: '' };
      env.hashes.push(part, new SliceHash(env.joined, start, start + cut.text.length));
    }
    offset = part.end;
    text += cut.text;
  }
  base.parts = parts;
  if (parts.length === 0) {
    base.reason = 'missing';
    return base;
  }
  if (kept === 0) {
    base.reason = 'empty';
    return base;
  }
  env.text = text;
  env.bytes = offset;
  return base;
}

/**
 * TRUNCATED for a cut layer: the file cut (a chain's part, or the layer's own file), its
 * size before and after, and the files left out for want of budget. `kept`: the bytes of
 * its source a cut part or layer kept (its text may be longer: a cut inside a character
 * reads as U+FFFD).
 */
export function truncatedWarning(l: LayerResult, kept: ReadonlyMap<object, number>): Diagnostic {
  const cut = l.parts?.find((p) => p.truncatedFrom !== undefined);
  const left = (l.parts ?? []).filter((p) => p.reason === 'budget').map((p) => p.source);
  // A dozen of them and how many: a chain of thousands of folders is no message of thousands of paths.
  const after = left.length > 0 ? `; left out, no budget left: ${knownList(left)}` : '';
  // Nothing cut short: the budget ran out at a file's end, or left a file only blanks.
  if (cut === undefined && l.truncatedFrom === undefined)
    return warning(
      'TRUNCATED',
      `layer ${l.id}: its byte budget leaves no text of a file (the layer keeps ${l.bytes} bytes)${after}`,
      { file: left[0]! },
    );
  const source = cut?.source ?? l.source;
  const from = cut?.truncatedFrom ?? l.truncatedFrom;
  const to = kept.get(cut ?? l) ?? cut?.bytes ?? l.bytes;
  const shown = cut?.bytes ?? l.bytes;
  // A cut inside a character: its first bytes read as U+FFFD, which takes more bytes.
  const lossy =
    shown !== undefined && shown !== to
      ? ` (${shown} bytes in the prompt: bytes that are no whole UTF-8 character, such as a character cut in two, read as U+FFFD)`
      : '';
  const layerKeeps = cut ? `; the layer keeps ${l.bytes} bytes` : '';
  return warning(
    'TRUNCATED',
    `layer ${l.id}: ${source === undefined ? 'text ' : ''}cut from ${from} to ${to} bytes by its byte budget${lossy}${layerKeeps}${after}`,
    source === undefined ? {} : { file: source },
  );
}

/** Whether a chain's budget cut one of its files or left one out. */
export function partTruncated(parts: readonly LayerPart[] | undefined): boolean {
  if (parts === undefined) return false;
  for (const p of parts) if (p.truncatedFrom !== undefined || p.reason === 'budget') return true;
  return false;
}

// --- internal ---

/**
 * The walk down to the folder a chain's filled path names, or undefined when it names
 * none the pack can read (said). A pack folder's walk is kept per snapshot and chain, by
 * the folder's own path (so bounded by the pack's folders): a path spelled so (or `.`,
 * the root) finds it at once; another spelling of the folder (`a/x/../b`: they are
 * endless) is worked out and then finds it. Nothing is kept when the compose tells
 * `onRead` what it looks up.
 */
function folderAndWalk(
  env: LayerEnv,
  layer: LayerDef,
  source: ChainSource,
  path: string,
): ChainWalk | undefined {
  const kept = env.onRead === undefined ? keptSteps(env.snapshot, source) : undefined;
  const hit = kept?.get(path === '.' ? '' : path)?.walk;
  if (hit !== undefined) return hit;
  const said = env.diagnostics.length;
  const dir = chainFolder(env, layer, source, path);
  if (dir === undefined) return undefined;
  // Every folder on the way to a pack folder is one too, and reads as it does: the steps
  // kept on the way down are each a folder's own.
  if (kept !== undefined && env.diagnostics.length === said && isPackFolder(env.snapshot, dir)) {
    const step = keptStep(env, source, kept, dir);
    step.walk ??= { dir, from: step.from, files: filesDown(step) };
    if (step.blocked !== undefined) step.walk.blocked = step.blocked;
    return step.walk;
  }
  return walkChain(env, source, dir);
}

/** A chain's steps down the pack's folders, by folder: once per snapshot and chain. */
function keptSteps(snapshot: Snapshot, source: ChainSource): Map<string, WalkStep> {
  const steps = derived(snapshot, 'chain-walks', () => new Map<ChainSource, Map<string, WalkStep>>());
  let bySource = steps.get(source);
  if (bySource === undefined) {
    bySource = new Map();
    steps.set(source, bySource);
  }
  return bySource;
}

/**
 * The pack folder a chain's filled path names (normalised), or undefined when it names
 * none the pack can read (said): an absolute path, one leaving the pack, a folder the pack
 * does not read. A folder a letter case or a normalisation away from one the pack has is
 * said too, and walked as written.
 */
function chainFolder(
  env: LayerEnv,
  layer: LayerDef,
  source: Extract<LayerSource, { kind: 'chain' }>,
  path: string,
): string | undefined {
  const { diagnostics } = env;
  // An absolute path (`--var cwd=$PWD/backend`) inside the pack's folder is that folder;
  // any other (`C:\repo`, a folder elsewhere) is not read as one inside the pack.
  const root = env.snapshot.root;
  const inside = root !== undefined && (path === root || path.startsWith(`${root.replace(/\/$/, '')}/`));
  const absolute = !inside && ABSOLUTE_PATH.test(path);
  const dir = absolute
    ? undefined
    : normalisePackPath(inside ? path.slice(root.length).replace(/^\/+/, '') : path);
  if (dir === undefined) {
    diagnostics.push(
      error(
        'PATH_OUTSIDE_PACK',
        `layer ${layer.id}: ${JSON.stringify(path)} (from ${source.path}) ${absolute ? `is an absolute path outside the pack; give a path relative to the pack root${root === undefined ? '' : ` or one inside ${root}`}` : 'leaves the pack'}`,
      ),
    );
    return undefined;
  }
  // A folder the pack does not read (`.github`, `node_modules`): its files cannot be known.
  if (dir !== '' && !hiddenAllowed(env.snapshot.manifest.hidden, dir)) {
    diagnostics.push(
      error(
        'PATH_OUTSIDE_PACK',
        `layer ${layer.id}: ${JSON.stringify(path)} (from ${source.path}) is in a folder the pack does not read (hidden folders and those of installed packages, node_modules, site-packages and dist-packages, are read only when the manifest's hidden: names them)`,
      ),
    );
    return undefined;
  }
  const { misnamed, missing } = folderVerdict(env.snapshot, dir);
  if (misnamed)
    diagnostics.push({
      ...warning(
        'LAYER_MISSING',
        `layer ${layer.id}: ${JSON.stringify(path)} (from ${source.path}) names the folder ${JSON.stringify(misnamed.given)}, in which the pack has no file; did you mean ${JSON.stringify(misnamed.meant)}?${misnamed.spelled ? ` (${misnamed.spelled})` : ''} No file in or below it is read`,
      ),
      suggestions: [misnamed.meant],
    });
  // A folder the pack's folder does not have (the reader listed them all), nor one a
  // letter case or a normalisation away (said above: a case-blind disk has it): no agent
  // works there.
  if (missing) {
    diagnostics.push({
      ...error(
        'INVALID_INPUT',
        `layer ${layer.id}: ${JSON.stringify(path)} (from ${source.path}) names the folder ${JSON.stringify(missing.folder)}, which the pack's folder does not have (an agent cannot work in a missing folder)${didYouMean(missing.suggestions)}`,
      ),
      ...(missing.suggestions.length > 0 ? { suggestions: missing.suggestions } : {}),
    });
    return undefined;
  }
  return dir;
}

/**
 * Whether `dir` is a folder a letter case or a normalisation away from the pack's, else
 * whether it is one the pack's folder does not have.
 */
function folderVerdict(snapshot: Snapshot, dir: string): FolderVerdict {
  // Every folder on the way to a pack folder is one too: none of them is misnamed.
  const misnamed = isPackFolder(snapshot, dir) ? undefined : misnamedFolder(snapshot, dir);
  return { misnamed, missing: misnamed ? undefined : missingFolder(snapshot, dir) };
}

interface FolderVerdict {
  misnamed: ReturnType<typeof misnamedFolder>;
  missing: ReturnType<typeof missingFolder>;
}

/** A path starting at a root: `/…`, `\…`, or a drive letter (`C:\`, `C:/`). */
const ABSOLUTE_PATH = /^(?:[/\\]|[A-Za-z]:[/\\])/;

/**
 * The first of a chain's files that exists in a folder of the pack (undefined when that one
 * could not be read, or there is none).
 */
function chainFile(
  env: LayerEnv,
  source: Extract<LayerSource, { kind: 'chain' }>,
  folder: string,
): PackFile | undefined {
  let found: PackFile | undefined;
  for (const name of source.files) {
    const path = folder === '' ? name : `${folder}/${name}`;
    found = fileAt(env, path);
    // A file there that could not be read (one over the size limit, a symlink leaving the
    // pack) is still the folder's pick: it gives no text, and no other file stands in for it.
    if (found || env.snapshot.unreadable?.has(path)) break;
  }
  return found;
}

/**
 * What stops a walk in a folder, when the pack has paths that could not be looked at: the
 * folder's `.git` (with `start: git_root`; looked at on the way up to the start folder),
 * or a candidate looked at before the file the folder takes.
 */
function blockedIn(env: LayerEnv, source: ChainSource, folder: string, marker: boolean): string | undefined {
  const blocked = env.snapshot.blocked;
  if (blocked === undefined) return undefined;
  const at = folder === '' ? '' : `${folder}/`;
  if (marker && source.start === 'git_root' && blocked.has(`${at}.git`)) return `${at}.git`;
  for (const name of source.files) {
    const path = at + name;
    if (blocked.has(path)) return path;
    if (fileAt(env, path) || env.snapshot.unreadable?.has(path)) return undefined;
  }
  return undefined;
}

/** The files a chain reads on its way down to a folder: from the start folder, in order. */
interface ChainWalk {
  /** The folder (pack-relative, normalised; '' for the root). */
  dir: string;
  /** The length of the start folder's path (0: the pack root). */
  from: number;
  files: readonly PackFile[];
  /** A path on the way that could not be looked at: the walk reads no file. */
  blocked?: string;
}

/**
 * One folder's step of a chain's walk down the pack's folders: the folder's file (if any)
 * and the step of the folder above, back to the start folder; each folder's own walk once
 * a compose asks for it. A step is a few fields, so a pack's deepest folders cost what
 * their depth costs, once, not once per folder on the way.
 */
interface WalkStep {
  /** The length of the start folder's path. */
  from: number;
  file: PackFile | undefined;
  /** The step of the folder above (undefined at the start folder). */
  above: WalkStep | undefined;
  /** A path that stops the walk down to this folder (see {@link blockedIn}). */
  blocked?: string;
  /** The walk down to this folder, once a compose asked for it. */
  walk?: ChainWalk;
}

/** The step of a pack folder, kept, from the kept step of the folder above it. */
function keptStep(env: LayerEnv, source: ChainSource, kept: Map<string, WalkStep>, dir: string): WalkStep {
  // The folders on the way up without a step yet, deepest first; then their steps, down.
  const missing: string[] = [];
  let step: WalkStep | undefined;
  for (let at = dir; ; at = at.slice(0, Math.max(at.lastIndexOf('/'), 0))) {
    step = kept.get(at);
    if (step !== undefined) break;
    missing.push(at);
    if (at === '') break;
  }
  for (let i = missing.length - 1; i >= 0; i--) {
    const folder = missing[i]!;
    const file = chainFile(env, source, folder);
    const starts = folder === '' || (source.start === 'git_root' && gitFoldersOf(env.snapshot).has(folder));
    const above = step;
    step = starts ? { from: folder.length, file, above: undefined } : { from: step!.from, file, above: step };
    // A marker that cannot be looked at stops every walk that looks at it (one from below
    // that meets no start folder first), a candidate every walk through its folder.
    const blocked =
      blockedIn(env, source, folder, !starts || folder === '') ?? (starts ? undefined : above?.blocked);
    if (blocked !== undefined) step.blocked = blocked;
    kept.set(folder, step);
  }
  return step!;
}

/** The files of the steps from the start folder down to `step`'s folder, in that order. */
function filesDown(step: WalkStep): PackFile[] {
  const files: PackFile[] = [];
  for (let at: WalkStep | undefined = step; at !== undefined; at = at.above) if (at.file) files.push(at.file);
  return files.reverse();
}

type ChainSource = Extract<LayerSource, { kind: 'chain' }>;

/**
 * The files of a chain's walk down to `dir`, each folder looked up: folders from the root
 * down ('', 'a', 'a/b', …; `at`: the length of the folder's path), with `start: git_root`
 * from the deepest folder on the way that holds a `.git` entry (a nested repository, a
 * submodule).
 */
function walkChain(env: LayerEnv, source: ChainSource, dir: string): ChainWalk {
  let from = 0;
  if (source.start === 'git_root')
    for (const folder of env.snapshot.gitFolders ?? [])
      if (folder.length > from && (dir === folder || dir.startsWith(`${folder}/`))) from = folder.length;
  const files: PackFile[] = [];
  let blocked: string | undefined;
  // A marker below the start folder that cannot be looked at is met on the way up first.
  if (env.snapshot.blocked !== undefined && source.start === 'git_root')
    for (
      let at = dir.length;
      at > from && blocked === undefined;
      at = Math.max(dir.lastIndexOf('/', at - 1), 0)
    ) {
      const folder = dir.slice(0, at);
      if (env.snapshot.blocked.has(`${folder}/.git`)) blocked = `${folder}/.git`;
    }
  if (blocked === undefined && from === 0 && env.snapshot.blocked?.has('.git') && source.start === 'git_root')
    blocked = '.git';
  for (let at = from; ; ) {
    const folder = at === 0 ? '' : dir.slice(0, at);
    const file = chainFile(env, source, folder);
    if (file) files.push(file);
    blocked ??= blockedIn(env, source, folder, false);
    if (at === dir.length) break;
    const next = dir.indexOf('/', at + 1);
    at = next === -1 ? dir.length : next;
  }
  return blocked === undefined ? { dir, from, files } : { dir, from, files, blocked };
}

/** The folders holding a `.git` entry, as a set: once per snapshot. */
function gitFoldersOf(snapshot: Snapshot): ReadonlySet<string> {
  return derived(snapshot, 'git-folders', (s) => new Set(s.gitFolders));
}
