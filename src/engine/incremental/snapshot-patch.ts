import type { BuildHooks, BuildRecord } from '../../core/build/build-hooks.js';
import { resolveSettings } from '../../core/build/build-settings.js';
import {
  carryDerived,
  FILES_BY_FOLDER,
  FLEET_BY_ID,
  FLEET_NAMES,
  LISTED_FOLDERS,
  PACK_FOLDERS,
  PATH_SUBSTITUTIONS,
  RECORDS_BY_FILE,
} from '../../core/build/derived.js';
import { Digests } from '../../core/build/digests.js';
import { NAME_PATHS } from '../../core/build/name-paths.js';
import {
  type DecodeContext,
  DecodedFile,
  decodePackFile,
  NOT_UTF8,
  type PackFile,
  packVersion,
  probeKeys,
} from '../../core/build/pack-file.js';
import { yamlOfBytes } from '../../core/build/snapshot.js';
import type { BuildInput, LoadResult, Snapshot } from '../../core/build/snapshot-types.js';
import { SPLIT_PATHS } from '../../core/compose/env.js';
import { pathSettingNames } from '../../core/pack/path-settings.js';
import { deepEqual } from '../../core/text/deep-equal.js';
import { byteOrder } from '../../core/text/text.js';
import { MAX_PACK_ALIAS_NODES } from '../../core/text/yaml-aliases.js';
import { LayeredMap } from './layered-map.js';
import { sameBytes } from './same-bytes.js';

/**
 * An engine's incremental builds: what each full build kept about its snapshot (its
 * `built` hook), so that the next build of the same pack can start from it (its `patch`
 * hook), and which paths each patched snapshot changed.
 */
export class Incremental {
  #records = new WeakMap<Snapshot, BuildRecord>();
  /** Per patched snapshot: the one it was patched from (held weakly) and the paths it changed. */
  #patches = new WeakMap<Snapshot, { base: WeakRef<Snapshot>; changed: readonly string[] }>();

  /**
   * Remembers how a snapshot was built, so {@link Incremental.patch} can start from it.
   * Only packs without files outside them are remembered.
   */
  remember(snapshot: Snapshot, record: BuildRecord): void {
    this.#records.set(snapshot, record);
  }

  /**
   * The paths whose files may differ between `a` and `b` when `b` was patched from `a` (a
   * superset of those that do), or undefined when that is not known.
   */
  patchedPaths(a: Snapshot, b: Snapshot): readonly string[] | undefined {
    const patch = this.#patches.get(b);
    return patch && patch.base.deref() === a ? patch.changed : undefined;
  }

  /**
   * The snapshot a full build of `input` would give, made from `previous` when that is
   * exact: the same pack (root, preset, refused paths, the same paths), the same resolved
   * settings and their diagnostics, no file outside the pack, and at most
   * {@link MAX_PATCHED_FILES} changed files (bytes objects other than the ones `previous`
   * was built from), none of which the manifest, preset detection, registry or fleet read,
   * each decoding cleanly (no diagnostic before or after) with the same frontmatter
   * metadata (the registry and the fleet see only that). The patched snapshot shares the
   * manifest, settings, role registry and fleet with `previous`, holds the changed files
   * decoded anew, and has its version computed over every file as a full build does.
   * Undefined when any of this does not hold: the caller builds in full. Pure; yields
   * between its steps.
   */
  *patch(input: BuildInput, previous: Snapshot, hooks: BuildHooks): Generator<void, LoadResult | undefined> {
    const record = this.#records.get(previous);
    if (!record || previous.external) return undefined;
    if (input.preset !== record.preset || input.root !== record.root) return undefined;
    if ((input.readDiagnostics?.length ?? 0) > 0 || (input.external?.size ?? 0) > 0) return undefined;
    if (!sameMembers(input.refused ?? EMPTY, record.refused)) return undefined;
    if ([...(input.gitFolders ?? [])].sort(byteOrder).join('\0') !== (previous.gitFolders ?? []).join('\0'))
      return undefined;
    if (input.files.size !== record.inputFiles.size) return undefined;
    if ((input.folders ?? []).join('\0') !== (previous.folders ?? []).join('\0')) return undefined;

    const { manifest } = previous;
    const resolved = resolveSettings(input, manifest);
    if (!deepEqual(resolved.settings, previous.settings)) return undefined;
    if (JSON.stringify(resolved.diagnostics) !== record.settingsKey) return undefined;
    for (const name of pathSettingNames(manifest)) {
      const value = resolved.settings.values[name];
      if (typeof value === 'string' && value !== '') return undefined;
    }

    // Which files have other bytes than the previous build's (another range, see `sameBytes`): the reader's layers
    // say when both are layered over one read; otherwise one pass (no yield: a few
    // milliseconds for 100,000 files).
    yield;
    const before = record.inputFiles;
    const changed: string[] = [];
    const layered = LayeredMap.changedKeys(before, input.files);
    let sameSet = layered !== undefined;
    if (layered) {
      for (const path of layered) if (!sameBytes(input.files.get(path), before.get(path))) changed.push(path);
    } else {
      sameSet = true;
      input.files.forEach((bytes, path) => {
        const was = before.get(path);
        if (sameBytes(was, bytes)) return;
        if (was === undefined) sameSet = false;
        else if (changed.length <= MAX_PATCHED_FILES) changed.push(path);
      });
    }
    if (!sameSet || changed.length > MAX_PATCHED_FILES) return undefined;
    yield;

    let files: Map<string, PackFile> | undefined;
    // The changed files' frontmatter aliases within the pack's limit, as a full build counts them.
    const decoding: DecodeContext = {
      digests: new Digests(),
      fast: hooks.fastYaml,
      aliases: { left: MAX_PACK_ALIAS_NODES },
    };
    for (const path of changed) {
      if (record.structural.has(path) || record.warned.has(path)) return undefined;
      const bytes = input.files.get(path)!;
      if (record.detected && !sameProbe(path, record.inputFiles.get(path)!, bytes, hooks)) return undefined;
      if (record.dropped.has(path)) continue;
      const file = decodeClean(path, bytes, manifest.frontmatter, record.raw(path), decoding);
      const before = previous.files.get(path);
      if (!file || !before || !deepEqual(before.meta, file.meta)) return undefined;
      files ??= new Map();
      files.set(path, file);
    }
    yield;
    const next: Snapshot = { ...previous, warnings: [...previous.warnings] };
    // It shares the previous one's fleet and paths: and so the look-ups made of them.
    for (const slot of [
      FLEET_BY_ID,
      FLEET_NAMES,
      PACK_FOLDERS,
      LISTED_FOLDERS,
      FILES_BY_FOLDER,
      PATH_SUBSTITUTIONS,
      RECORDS_BY_FILE,
      SPLIT_PATHS,
      NAME_PATHS,
    ])
      carryDerived(previous, next, slot);
    if (input.maxPromptBytes === undefined) delete next.maxPromptBytes;
    else next.maxPromptBytes = input.maxPromptBytes;
    if (files) {
      next.files = LayeredMap.over(previous.files, files);
      next.version = packVersion(
        next.files,
        record.refusedKept,
        previous.preset ?? 'manifest',
        new Map(),
        previous.gitFolders,
      );
    }
    this.remember(next, { ...record, inputFiles: input.files });
    this.#patches.set(next, { base: new WeakRef(previous), changed });
    return { snapshot: next, diagnostics: next.warnings };
  }
}

/** Changed files at most a patched build decodes; more, and the build starts over. */
export const MAX_PATCHED_FILES = 256;

// --- internal ---

const EMPTY: ReadonlySet<string> = new Set();

function sameMembers(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/**
 * A file decoded as a full build decodes it, when that gives no diagnostic; undefined
 * otherwise.
 */
function decodeClean(
  path: string,
  bytes: Uint8Array,
  frontmatter: Snapshot['manifest']['frontmatter'],
  isRaw: boolean,
  decoding: DecodeContext,
): PackFile | undefined {
  const isYaml = /\.ya?ml$/i.test(path);
  const decoded = decodePackFile(path, bytes, isYaml ? 'yaml' : frontmatter, !isYaml && isRaw, decoding);
  if (decoded === NOT_UTF8) return undefined;
  if (decoded instanceof DecodedFile) return decoded;
  return decoded.split.diagnostics.length > 0 ? undefined : decoded.file;
}

/** Whether preset detection sees the same keys in a file's old and new bytes. */
function sameProbe(path: string, before: Uint8Array, after: Uint8Array, hooks: BuildHooks): boolean {
  // A YAML file's parse, shared with the build through the per-bytes memo.
  const yamlOf = (bytes: Uint8Array) => {
    const parse = () => yamlOfBytes(path, bytes, hooks.fastYaml);
    return hooks.memo ? hooks.memo(bytes, 'yaml', parse, path) : parse();
  };
  const keys = (bytes: Uint8Array) =>
    JSON.stringify(probeKeys(path, new Map([[path, bytes]]), () => yamlOf(bytes)).map((k) => [...k].sort()));
  return keys(before) === keys(after);
}
