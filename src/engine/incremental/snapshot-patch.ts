import {
  DecodedFile,
  decodePackFile,
  NOT_UTF8,
  type PackFile,
  packVersion,
  probeKeys,
} from '../../core/build/pack-file.js';
import type { BuildInput, LoadResult, Snapshot } from '../../core/build/snapshot-types.js';
import { pathSettingNames } from '../../core/pack/path-settings.js';
import { applyOverrides, type ResolvedSettings, resolveEnvSettings } from '../../core/pack/settings.js';
import { deepEqual } from '../../core/text/deep-equal.js';
import type { Diagnostic } from '../../core/text/diagnostics.js';
import { byteOrder } from '../../core/text/text.js';
import type { ParsedYaml } from '../../core/text/yaml.js';
import { yamlOfBytes } from '../memo/parse-memo.js';
import { LayeredMap } from './layered-map.js';
import { sameBytes } from './same-bytes.js';

/**
 * What a build kept about its snapshot so that the next build of the same pack can start
 * from it: the input it was built from, and which paths the pack's structure (manifest,
 * preset detection, role registry, fleet) was read from.
 */
export interface BuildRecord {
  /** The files the snapshot was built from (the same bytes objects). */
  inputFiles: ReadonlyMap<string, Uint8Array>;
  refused: ReadonlySet<string>;
  /** The forced preset of the build, if any. */
  preset: string | undefined;
  root: string | undefined;
  /** Whether the preset came from detection (no manifest, none forced). */
  detected: boolean;
  /**
   * Files the manifest, registry or fleet were read from (manifest chain, registry YAML
   * files, the fleet file, every agent's declaring file): a change to one rebuilds all.
   */
  structural: ReadonlySet<string>;
  /** Files the manifest leaves out of the pack (`files:`, `hidden:`). */
  dropped: ReadonlySet<string>;
  /** Refused paths the version counts (those the manifest does not leave out). */
  refusedKept: readonly string[];
  /** Which files the manifest keeps raw. */
  raw: (path: string) => boolean;
  /** Files a warning of the snapshot names. */
  warned: ReadonlySet<string>;
  /** The settings' diagnostics, as JSON. */
  settingsKey: string;
}

/**
 * Remembers how a snapshot was built, so {@link patchSnapshot} can start from it. Only
 * packs without files outside them are remembered.
 */
export function rememberBuild(snapshot: Snapshot, record: BuildRecord): void {
  records.set(snapshot, record);
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
export function* patchSnapshot(
  input: BuildInput,
  previous: Snapshot,
  settingsOf: (input: BuildInput, manifest: Snapshot['manifest']) => SettingsResult,
): Generator<void, LoadResult | undefined> {
  const record = records.get(previous);
  if (!record || previous.external) return undefined;
  if (input.preset !== record.preset || input.root !== record.root) return undefined;
  if ((input.readDiagnostics?.length ?? 0) > 0 || (input.external?.size ?? 0) > 0) return undefined;
  if (!sameMembers(input.refused ?? EMPTY, record.refused)) return undefined;
  if ([...(input.gitFolders ?? [])].sort(byteOrder).join('\0') !== (previous.gitFolders ?? []).join('\0'))
    return undefined;
  if (input.files.size !== record.inputFiles.size) return undefined;

  const { manifest } = previous;
  const resolved = settingsOf(input, manifest);
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
  for (const path of changed) {
    if (record.structural.has(path) || record.warned.has(path)) return undefined;
    const bytes = input.files.get(path)!;
    if (record.detected && !sameProbe(path, record.inputFiles.get(path)!, bytes)) return undefined;
    if (record.dropped.has(path)) continue;
    const file = decodeClean(path, bytes, manifest.frontmatter, record.raw(path));
    const before = previous.files.get(path);
    if (!file || !before || !deepEqual(before.meta, file.meta)) return undefined;
    files ??= new Map();
    files.set(path, file);
  }
  yield;
  const next: Snapshot = { ...previous, warnings: [...previous.warnings] };
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
  rememberBuild(next, { ...record, inputFiles: input.files });
  patches.set(next, { base: new WeakRef(previous), changed });
  return { snapshot: next, diagnostics: next.warnings };
}

/**
 * The paths whose files may differ between `a` and `b` when `b` was patched from `a` (a
 * superset of those that do), or undefined when that is not known.
 */
export function patchedPaths(a: Snapshot, b: Snapshot): readonly string[] | undefined {
  const patch = patches.get(b);
  return patch && patch.base.deref() === a ? patch.changed : undefined;
}

/** The settings a build resolves, and their diagnostics. */
export interface SettingsResult {
  settings: ResolvedSettings;
  diagnostics: Diagnostic[];
}

/** Settings from the manifest's defaults, env, then the operator's values (a build's step 3). */
export function resolveSettings(input: BuildInput, manifest: Snapshot['manifest']): SettingsResult {
  const env = resolveEnvSettings(manifest.settings, input.env ?? {});
  const over = applyOverrides(manifest.settings, env.settings, input.operatorSettings, 'operator', true);
  return { settings: over.settings, diagnostics: [...env.diagnostics, ...over.diagnostics] };
}

/** Changed files at most a patched build decodes; more, and the build starts over. */
export const MAX_PATCHED_FILES = 256;

// --- internal ---

const records = new WeakMap<Snapshot, BuildRecord>();
/** Per patched snapshot: the one it was patched from (held weakly) and the paths it changed. */
const patches = new WeakMap<Snapshot, { base: WeakRef<Snapshot>; changed: readonly string[] }>();
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
): PackFile | undefined {
  const isYaml = /\.ya?ml$/i.test(path);
  const decoded = decodePackFile(path, bytes, isYaml ? 'yaml' : frontmatter, !isYaml && isRaw);
  if (decoded === NOT_UTF8) return undefined;
  if (decoded instanceof DecodedFile) return decoded;
  return decoded.split.diagnostics.length > 0 ? undefined : decoded.file;
}

/** Whether preset detection sees the same keys in a file's old and new bytes. */
function sameProbe(path: string, before: Uint8Array, after: Uint8Array): boolean {
  const keys = (bytes: Uint8Array) =>
    JSON.stringify(
      probeKeys(path, new Map([[path, bytes]]), (p) => yamlOf(p, bytes)).map((k) => [...k].sort()),
    );
  return keys(before) === keys(after);
}

/** A YAML file's parse, shared with the build through the per-bytes memo. */
function yamlOf(path: string, bytes: Uint8Array): ParsedYaml | undefined {
  return yamlOfBytes(path, bytes);
}
