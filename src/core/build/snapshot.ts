import { type Layouts, layoutSet } from '../layout.js';
import { compileGlob } from '../pack/glob.js';
import { type Manifest, resolveManifest } from '../pack/manifest.js';
import { parseManifestPart } from '../pack/manifest-parse.js';
import type { ManifestPart } from '../pack/manifest-part.js';
import { namedFileMissing } from '../pack/named-missing.js';
import { resolvePackPath } from '../pack/pack-path.js';
import { operatorPath, pathSettingNames } from '../pack/path-settings.js';
import { folderSelector, pathSelector } from '../pack/select.js';
import { textPlaceholders } from '../pack/template.js';
import {
  type Diagnostic,
  type DiagnosticCode,
  error,
  hasErrors,
  sortDiagnostics,
  type Where,
  warning,
} from '../text/diagnostics.js';
import { notTextDiagnostic } from '../text/not-text.js';
import { closestNames, didYouMean, knownList } from '../text/suggest.js';
import { byteOrder, decodeText, isUtf8Text } from '../text/text.js';
import { type FastYaml, type ParsedYaml, type ParseYamlOptions, parseYaml } from '../text/yaml.js';
import { type AliasBudget, MAX_PACK_ALIAS_NODES } from '../text/yaml-aliases.js';
import { yaml11LineBreak } from '../text/yaml-line-breaks.js';
import type { BuildHooks } from './build-hooks.js';
import { resolveSettings } from './build-settings.js';
import {
  filesByFolder,
  fleetById,
  fleetNames,
  listedFolders,
  packFolders,
  pathSubstitutions,
  recordsByFile,
} from './derived.js';
import { alsoDetected, detectPreset, presetPart, withoutRoles } from './detect.js';
import { Digests } from './digests.js';
import { fleetSteps } from './fleet.js';
import { frontmatterWhere } from './frontmatter-where.js';
import { misnamedManifest } from './manifest-misnamed.js';
import { namePaths } from './name-paths.js';
import {
  type DecodeContext,
  DecodedFile,
  decodeFile,
  decodePackFile,
  NOT_UTF8,
  type PackFile,
  packVersion,
  probeKeys,
  splitOf,
} from './pack-file.js';
import { promptReach } from './prompt-reach.js';
import { checkRoleFieldTypes, registrySteps } from './roles.js';
import { type BuildInput, type LoadResult, MANIFEST_FILE, type Snapshot } from './snapshot-types.js';
import { runSteps, runStepsSliced, type Yielder } from './yielder.js';

export type { PackFile } from './pack-file.js';
export type { BuildInput, LoadResult, Snapshot } from './snapshot-types.js';
export { MANIFEST_FILE } from './snapshot-types.js';

/**
 * Builds a snapshot from a pack's files (pure: no I/O). Collects every problem as a
 * diagnostic; returns a snapshot only when there is no error.
 */
export function buildSnapshot(input: BuildInput, hooks: BuildHooks = {}): LoadResult {
  return runSteps(buildSteps(input, hooks));
}

/**
 * {@link buildSnapshot} in steps, giving the event loop a turn whenever `yielder` says
 * the slice is used up (a service reloading a large pack keeps answering meanwhile).
 */
export function buildSnapshotSliced(
  input: BuildInput,
  yielder: Yielder,
  hooks: BuildHooks = {},
): Promise<LoadResult> {
  return runStepsSliced(buildSteps(input, hooks), yielder);
}

/** The build, yielding between steps of a few hundred files or records. */
function* buildSteps(input: BuildInput, hooks: BuildHooks): Generator<void, LoadResult> {
  // A reload of a pack built before: start from that build when it is exact to.
  if (input.previous && hooks.patch) {
    const patched = yield* hooks.patch(input, input.previous);
    if (patched) return patched;
  }
  const memo = hooks.memo ?? computeOnce;
  // The nodes all the pack's YAML aliases may add: its YAML files' and frontmatter's
  // (detection's reading of frontmatter keys has its own).
  const aliases: AliasBudget = { left: MAX_PACK_ALIAS_NODES };
  const probeAliases: AliasBudget = { left: MAX_PACK_ALIAS_NODES };
  const decoding: DecodeContext = { digests: new Digests(), fast: hooks.fastYaml, aliases };
  const diagnostics: Diagnostic[] = [...(input.readDiagnostics ?? [])];
  const _env = input.env ?? {};
  // The reader could not read the pack as a whole: its files say nothing about it.
  if (diagnostics.some((d) => WHOLE_PACK_CODES.includes(d.code))) return finish(diagnostics);

  // 1. Manifest: forced preset, the pack's strata.yaml, or a preset detected from the layout.
  const paths = [...input.files.keys()];
  if (!inByteOrder(paths)) paths.sort(byteOrder); // a folder read gives them in order
  // Checked once per bytes object (the memo); a file that is not UTF-8 is reported once.
  const notUtf8 = new Set<string>();
  const strictUtf8 = (path: string): boolean => {
    const bytes = input.files.get(path);
    const ok = bytes !== undefined && memo(bytes, 'utf8', () => isUtf8Text(bytes), '');
    if (bytes !== undefined && !ok && !notUtf8.has(path)) {
      notUtf8.add(path);
      diagnostics.push(notTextDiagnostic(path, bytes, 'strict'));
    }
    return ok;
  };
  const yamls = new Map<string, ParsedYaml>();
  const reported = new Set<string>();
  // Parsed once: detection reads a YAML file's records before the registry does.
  const parsedYaml = (path: string): ParsedYaml | undefined => {
    let parsed = yamls.get(path);
    if (!parsed) {
      const bytes = input.files.get(path);
      if (bytes === undefined) return undefined;
      let counted = false;
      const parse = () => {
        counted = true;
        return yamlOfBytes(path, bytes, hooks.fastYaml, aliases);
      };
      parsed = memo(bytes, 'yaml', parse, path);
      // An earlier build's parse: what its aliases add is taken here, and one refused for
      // that build's pack, or adding more than is left, is parsed again against this one's.
      if (parsed && !counted && (parsed.overPack || parsed.aliasNodes)) {
        if (!parsed.overPack && parsed.aliasNodes! <= aliases.left) aliases.left -= parsed.aliasNodes!;
        else parsed = parse();
      }
      if (parsed === undefined) return undefined;
      yamls.set(path, parsed);
    }
    return parsed;
  };
  const yamlOf = (path: string): ParsedYaml | undefined => {
    if (!strictUtf8(path)) return undefined;
    const parsed = parsedYaml(path)!;
    if (!reported.has(path)) {
      reported.add(path);
      diagnostics.push(...parsed.diagnostics);
    }
    return parsed;
  };

  // A role file whose plain scalars are typed as PyYAML types them (`registry.scalars:
  // pyyaml`): the parse above when it found them typed alike (nearly always), else a parse
  // that types them so (once per bytes, as the other).
  const pyyamls = new Map<string, ParsedYaml>();
  const pyyamlParsed = (path: string): ParsedYaml => {
    const parsed = parsedYaml(path)!;
    if (parsed.readsAsPyYaml) return parsed;
    let again = pyyamls.get(path);
    if (!again) {
      const bytes = input.files.get(path)!;
      // Its aliases were counted by the parse above: the same nodes.
      again = memo(
        bytes,
        'yaml-pyyaml',
        () => yamlOfBytes(path, bytes, hooks.fastYaml, undefined, 'pyyaml'),
        path,
      )!;
      pyyamls.set(path, again);
    }
    return again;
  };
  const registryYamlOf = (path: string): ParsedYaml | undefined => {
    if (!strictUtf8(path)) return undefined;
    const { registry } = manifest;
    if (registry.duplicateKeys === 'last') return lastKeyWinsYamlOf(path, registry.scalars);
    if (registry.scalars !== 'pyyaml') return yamlOf(path);
    const parsed = pyyamlParsed(path);
    if (!reported.has(path)) {
      reported.add(path);
      diagnostics.push(...parsed.diagnostics);
    }
    return parsed;
  };

  // A role file read as PyYAML reads it (`registry.duplicate_keys: last`): a repeated key's
  // later value wins, and each repeat is a warning instead of an error; a file writing a
  // character PyYAML takes as a line break (NEL, U+2028, U+2029) is refused.
  const lastKeyWinsYamlOf = (
    path: string,
    scalars: 'core' | 'pyyaml' | undefined,
  ): ParsedYaml | undefined => {
    if (!strictUtf8(path)) return undefined;
    const lineBreak = yaml11LineBreak(path, input.files.get(path)!);
    if (lineBreak) {
      if (!reported.has(path)) diagnostics.push(lineBreak);
      reported.add(path);
      return undefined;
    }
    const parsed = scalars === 'pyyaml' ? pyyamlParsed(path) : parsedYaml(path)!;
    const lenient = parsed.lastKeyWins;
    if (!lenient) {
      if (!reported.has(path)) {
        reported.add(path);
        diagnostics.push(...parsed.diagnostics);
      }
      return parsed;
    }
    if (!reported.has(path)) {
      reported.add(path);
      for (const { key, at } of lenient.repeats)
        diagnostics.push(
          warning(
            'YAML_SYNTAX',
            `key ${JSON.stringify(key)} is written again in the same mapping; the later value replaces the earlier one, as PyYAML reads the file`,
            at,
          ),
        );
    }
    return { value: lenient.value, diagnostics: [], locate: (p, key) => parsed.locate(p, key) };
  };

  let rootPart: ManifestPart;
  let rootKey: string;
  const layouts = input.layouts ?? layoutSet([]);
  if (input.preset !== undefined && !layouts.get(input.preset)) {
    diagnostics.push(
      error(
        'UNKNOWN_PRESET',
        `unknown preset ${JSON.stringify(input.preset)}; presets: ${layouts.names.join(', ') || 'none'}`,
      ),
    );
    return finish(diagnostics);
  }
  // A manifest saved under another spelling is said, not passed over for a detected layout.
  const misnamed =
    input.preset === undefined && !input.files.has(MANIFEST_FILE)
      ? misnamedManifest(paths, (p) => (strictUtf8(p) ? parsedYaml(p) : undefined))
      : undefined;
  if (misnamed) {
    diagnostics.push(misnamed);
    return finish(diagnostics);
  }
  const presetName =
    input.preset ??
    (input.files.has(MANIFEST_FILE)
      ? undefined
      : // A refused file still exists: a notes file over the size limit still decides the layout.
        detectPreset(layouts, input.refused?.size ? [...paths, ...input.refused] : paths, (p) =>
          probeKeys(p, input.files, parsedYaml, hooks.fastYaml, probeAliases),
        ));
  if (presetName) {
    rootKey = `preset:${presetName}`;
    rootPart = presetPart(layouts, presetName, diagnostics);
  } else {
    rootKey = MANIFEST_FILE;
    const parsed = yamlOf(MANIFEST_FILE);
    if (!parsed || parsed.diagnostics.length > 0) return finish(diagnostics);
    const { part, diagnostics: d } = parseManifestPart(parsed, MANIFEST_FILE, layouts);
    diagnostics.push(...d);
    rootPart = part;
  }
  const { manifest, diagnostics: md } = resolveManifest(
    rootPart,
    rootKey,
    (target, from) => {
      if (layouts.get(target))
        return { key: `preset:${target}`, part: presetPart(layouts, target, diagnostics), diagnostics: [] };
      if (!/\.ya?ml$/.test(target)) return undefined;
      const path = resolvePackPath(from.startsWith('preset:') ? '' : from, target);
      if (path === undefined || !input.files.has(path)) return undefined;
      const parsed = yamlOf(path);
      if (!parsed) return undefined;
      if (parsed.diagnostics.length > 0) return { key: path, diagnostics: [] };
      const { part, diagnostics: d } = parseManifestPart(parsed, path, layouts);
      return { key: path, part, diagnostics: d };
    },
    layouts.names,
    // Every file of the chain is parsed by now: a value is found in its tree.
    (ref, within) =>
      ref.file.startsWith('preset:') ? undefined : yamlOf(ref.file)?.locate(ref.path, false, within),
  );
  diagnostics.push(...md);
  // Said with a failed build only when the manifest itself is sound (every extends found).
  const sound = hasErrors(md) ? {} : { manifest };
  const preset = manifest.chain.filter((k) => k.startsWith('preset:')).map((k) => k.slice(7))[0];

  // 2. The pack's files (`files:`, `hidden:`), decoded; frontmatter split from prompt files.
  const chainFiles = new Set(manifest.chain.filter((k) => !k.startsWith('preset:')));
  const selects = pathSelector(manifest);
  const selected = (path: string) => chainFiles.has(path) || selects(path);
  // A refused folder (`dir/`: one the reader could not enter) is the pack's when it may hold its files.
  const selectsBelow = folderSelector(manifest);
  const dropped = new Set(
    [...paths, ...(input.refused ?? [])].filter((p) =>
      p.endsWith('/') ? !selectsBelow(p.slice(0, -1)) : !selected(p),
    ),
  );
  if (dropped.size > 0) {
    const kept = diagnostics.filter((d) => d.file === undefined || !dropped.has(d.file));
    diagnostics.length = 0;
    diagnostics.push(...kept);
  }
  // `unreadable: skip`: a selected file the reader refused (a broken symlink,
  // one leaving the pack, one over the size limit) is left out and said.
  let unreadable: Set<string> | undefined;
  if (manifest.unreadable === 'skip' && input.refused && input.refused.size > 0) {
    const refused = input.refused;
    for (let i = 0; i < diagnostics.length; i++) {
      const d = diagnostics[i]!;
      if (d.severity !== 'error' || d.file === undefined || !refused.has(d.file)) continue;
      if (!SKIPPABLE.includes(d.code)) continue;
      const raise = d.code === 'FILE_TOO_LARGE' ? ' (--max-file-bytes raises the limit)' : '';
      // A FIFO, a folder named like the file or a symlink to nothing is no file at all (tools
      // that read such files pass over it too); anything else is a file there that gives no text.
      const there = d.code !== 'SPECIAL_FILE' && !input.gone?.has(d.file);
      const folder = d.file.endsWith('/');
      if (there && !folder) {
        unreadable ??= new Set();
        unreadable.add(d.file);
      }
      const left = folder
        ? 'the folder is left out: no file in it is read'
        : input.blocked?.has(d.file)
          ? 'the file is left out: a chain whose walk meets it reads no file'
          : there
            ? 'the file is left out: no text of it is composed, nor the next file of a chain in its place'
            : 'it is left out, as if it were not there';
      diagnostics[i] = warning(d.code, `${d.message}; ${left}${raise}`, d);
    }
  }
  // A folder whose name is not UTF-8 (shown with U+FFFD: no path can name what is in it)
  // in a pack that selects its files from a larger folder: left out and said, rather than
  // failing the pack for a folder that most likely holds none of its files.
  if (manifest.files !== undefined && input.refused)
    for (let i = 0; i < diagnostics.length; i++) {
      const d = diagnostics[i]!;
      const at = d.file;
      if (d.severity !== 'error' || d.code !== 'READ_ERROR' || at === undefined) continue;
      if (!at.endsWith('/') || !at.includes('\uFFFD') || !input.refused.has(at)) continue;
      diagnostics[i] = warning(d.code, `${d.message}; the folder is left out: no file in it is read`, d);
    }
  const rawGlobs = manifest.raw.map(compileGlob);
  const decodedBefore = earlierDecodings(input.previous, manifest);
  const files = new Map<string, PackFile>();
  const frontmatter = new Map<string, ParsedYaml>();
  const frontmatterSaid = new Set<string>();
  // Said once the files that can reach a prompt are known (after the settings).
  const splitProblems: Diagnostic[] = [];
  const filePaths = paths.filter((p) => !dropped.has(p));
  let step = 0;
  for (const path of filePaths) {
    if ((++step & 255) === 0) yield;
    const bytes = input.files.get(path)!;
    const isYaml = /\.ya?ml$/i.test(path);
    const isRaw = !isYaml && rawGlobs.some((g) => g(path));
    // A YAML file's text is also parsed (once, the memo): decoded through the same step.
    if (isYaml && !strictUtf8(path)) continue;
    // An unchanged file of a reload (the same bytes object) is the last build's, as it
    // was: it costs nothing here. The text is not kept: the file derives it from its
    // bytes when asked.
    const mode = isYaml ? 'yaml' : manifest.frontmatter;
    const before = decodedBefore?.get(path);
    const decoded =
      before instanceof DecodedFile && before.sameDecoding(bytes)
        ? before
        : decodePackFile(path, bytes, mode, isRaw, decoding);
    if (decoded === NOT_UTF8) {
      strictUtf8(path); // reports INVALID_UTF8
      continue;
    }
    const { file, split } = decoded instanceof DecodedFile ? { file: decoded, split: undefined } : decoded;
    if (split) {
      splitProblems.push(...split.diagnostics);
      if (split.yaml) frontmatter.set(path, split.yaml);
    }
    files.set(path, file);
  }
  // Frontmatter positions (fleet diagnostics) from a parse of the file again: a split is
  // kept only for files with problems, so a loaded pack holds no frontmatter text.
  const relocated = new Map<string, ParsedYaml | undefined>();
  const locateMeta = (path: string, key: string): Where => {
    const kept = frontmatter.get(path);
    if (kept) return kept.locate([key]);
    const file = files.get(path);
    if (!file || file.bodyOffset === 0 || /\.ya?ml$/i.test(path)) return { file: path };
    if (!relocated.has(path)) relocated.set(path, splitOf(file.text, path, manifest.frontmatter)?.yaml);
    return relocated.get(path)?.locate([key]) ?? { file: path };
  };

  if (manifest.layers.length === 0 && !hasErrors(diagnostics)) {
    diagnostics.push(noLayers(rootPart, rootKey, detectPreset(layouts, paths)));
  }

  // 3. Settings from defaults, env and the operator (invalid values fail here, at load).
  const resolved = resolveSettings(input, manifest);
  const { settings } = resolved;
  diagnostics.push(...resolved.diagnostics);

  // 3b. Files outside the pack that operator-set path settings name.
  const external = new Map<string, PackFile>();
  const needs: string[] = [];
  const settingPaths: string[] = [];
  for (const name of pathSettingNames(manifest)) {
    const value = settings.values[name];
    if (typeof value !== 'string' || value === '') continue;
    const where = operatorPath(input.root, value);
    if ('pack' in where) settingPaths.push(where.pack);
    if (!('external' in where) || external.has(where.external)) continue;
    const bytes = input.external?.get(where.external);
    if (bytes === undefined) {
      needs.push(where.external);
      continue;
    }
    const file = decodeFile(where.external, bytes, diagnostics, new Map(), decoding);
    if (file) external.set(where.external, file);
  }

  // 3c. A file's frontmatter problems, said where the file can reach a prompt, a role or
  // the fleet (a command or a skill beside the agents is none); a raw file's bytes that
  // are no UTF-8 text are said wherever it is.
  const reaches =
    splitProblems.length === 0
      ? undefined
      : promptReach(
          manifest,
          [...files.keys()].filter((p) => !/\.ya?ml$/i.test(p)),
          settingPaths,
        );
  for (const d of splitProblems) {
    if (d.code !== 'INVALID_UTF8' && d.file !== undefined && !reaches!(d.file)) continue;
    diagnostics.push(d);
    if (d.code === 'BAD_FRONTMATTER' && d.file !== undefined) frontmatterSaid.add(d.file);
  }

  // 4. Role registry.
  // Only decoded files: one that is not UTF-8 already has its INVALID_UTF8 error.
  const roleFiles: Array<{ path: string; yaml: ParsedYaml }> = [];
  const registryGlobs = manifest.registry.files.map(compileGlob);
  for (const path of files.keys()) {
    if (!/\.ya?ml$/i.test(path) || path === MANIFEST_FILE || path === manifest.fleet.file) continue;
    if (!registryGlobs.some((g) => g(path))) continue;
    const yaml = registryYamlOf(path);
    if (yaml) roleFiles.push({ path, yaml });
  }
  yield;
  const { roles, diagnostics: rd } = yield* registrySteps(
    manifest.registry,
    roleFiles,
    [...files.keys()].filter((p) => !/\.ya?ml$/i.test(p)),
    (p) => ({ ...files.get(p)?.meta }),
    locateMeta,
    (p) => files.get(p)?.text,
    (p) => frontmatterSaid.has(p),
    layouts.discovery,
  );
  diagnostics.push(...rd);
  diagnostics.push(
    ...checkRoleFieldTypes(roles, roleFieldsOf(manifest), manifest.registry, roleFiles, locateMeta),
  );

  // 5. Fleet: fleet.yaml and identity frontmatter.
  yield;
  const fleetYaml = files.has(manifest.fleet.file) ? yamlOf(manifest.fleet.file) : undefined;
  // A fleet file the pack's own manifest names must be there: no fleet is not a quiet default.
  const fleetNamed = manifest.named.find((n) => n.by === 'fleet.file');
  if (fleetNamed) {
    const p = fleetNamed.glob;
    if (dropped.has(p) || (!input.files.has(p) && !input.refused?.has(p))) {
      const known = [...paths, ...(input.refused ?? [])].filter((k) => /\.ya?ml$/i.test(k));
      diagnostics.push(namedFileMissing(fleetNamed, 'BAD_FLEET', known, manifest.hidden));
    }
  }
  const { agents, diagnostics: fd } = yield* fleetSteps(manifest.fleet, fleetYaml, filePaths, (p) => ({
    meta: (files.get(p)?.meta as Record<string, unknown>) ?? {},
    locate: (key: string): Where =>
      frontmatter.has(p) ? locateMeta(p, key) : frontmatterWhere(p, key, files.get(p), manifest.frontmatter),
  }));
  diagnostics.push(...fd);
  if (roles.size > 0) {
    // The closest roles of each unknown role, worked out once per name and for the first
    // CLOSEST_UNKNOWN_ROLES names only (a fleet of thousands of mistakes costs no more).
    let known: string[] | undefined;
    const closest = new Map<string, string>();
    for (const agent of agents) {
      if (agent.role === undefined || roles.has(agent.role)) continue;
      known ??= [...roles.keys()];
      let hint = closest.get(agent.role);
      if (hint === undefined) {
        hint = closest.size < CLOSEST_UNKNOWN_ROLES ? didYouMean(closestNames(agent.role, known)) : '';
        closest.set(agent.role, hint);
      }
      diagnostics.push(
        error(
          'UNKNOWN_ROLE',
          `agent ${agent.id} has unknown role ${agent.role}${hint}; known roles: ${knownList(known)}`,
          agent.at ?? { file: agent.source },
        ),
      );
    }
  }

  if (needs.length > 0) {
    for (const path of needs)
      diagnostics.push(
        error('PATH_OUTSIDE_PACK', `${path} is outside the pack and was not read; load the pack from disk`, {
          file: path,
        }),
      );
    return { ...finish(diagnostics), needs, ...sound };
  }
  if (hasErrors(diagnostics)) return { ...finish(diagnostics), ...sound };
  yield;
  const gitFolders = input.gitFolders?.length ? [...input.gitFolders].sort(byteOrder) : undefined;
  const snapshot: Snapshot = {
    version: packVersion(
      files,
      [...(input.refused ?? [])]
        .filter((p) => !dropped.has(p))
        .concat([...(input.blocked ?? [])].map((p) => `${p}\0blocked`)),
      preset ?? 'manifest',
      external,
      gitFolders,
    ),
    manifest,
    files,
    roles: inByteOrder([...roles.keys()]) ? roles : new Map([...roles].sort(([a], [b]) => byteOrder(a, b))),
    fleet: agents,
    settings,
    warnings: sortDiagnostics(diagnostics),
  };
  if (preset) snapshot.preset = preset;
  snapshot.layouts = layouts;
  if (input.maxPromptBytes !== undefined) snapshot.maxPromptBytes = input.maxPromptBytes;
  // The fleet by id and the names it declares, made with the snapshot: a first compose
  // looks an agent or a team up at once.
  fleetById(snapshot);
  fleetNames(snapshot);
  if (input.root) snapshot.root = input.root;
  if (gitFolders) snapshot.gitFolders = gitFolders;
  if (input.folders) snapshot.folders = input.folders;
  if (unreadable) snapshot.unreadable = unreadable;
  if (input.blocked?.size) snapshot.blocked = input.blocked;
  // What a first compose would otherwise work out from every path of the pack: its
  // folders (for chain layers), its files by folder (for file layers: a missing file's
  // closest files) and its layout's substitutions by file.
  const kinds = new Set(manifest.layers.flatMap(layerSourceKinds));
  if (kinds.has('chain')) {
    packFolders(snapshot);
    listedFolders(snapshot);
  }
  if (kinds.has('file')) filesByFolder(snapshot);
  pathSubstitutions(snapshot);
  namePaths(snapshot);
  if (snapshot.warnings.some((d) => d.file !== undefined)) recordsByFile(snapshot);
  // A detected layout without roles: another layout with roles in the same folder is a hint.
  if (presetName !== undefined && input.preset === undefined && withoutRoles(manifest)) {
    const also = alsoDetected(layouts, presetName, paths, (p) =>
      probeKeys(p, input.files, parsedYaml, hooks.fastYaml, probeAliases),
    );
    if (also.length > 0) snapshot.alsoLayouts = also;
  }
  if (external.size > 0) snapshot.external = external;
  else
    hooks.built?.(snapshot, {
      inputFiles: input.files,
      refused: new Set(input.refused ?? []),
      preset: input.preset,
      root: input.root,
      detected: input.preset === undefined && presetName !== undefined,
      structural: new Set([
        MANIFEST_FILE,
        ...chainFiles,
        manifest.fleet.file,
        ...roleFiles.map((f) => f.path),
        ...agents.map((a) => a.source),
        ...ruleRead(manifest, layouts, files.keys()),
      ]),
      dropped,
      refusedKept: [...(input.refused ?? [])].filter((p) => !dropped.has(p)),
      raw: (path) => rawGlobs.some((g) => g(path)),
      warned: new Set(snapshot.warnings.flatMap((d) => (d.file === undefined ? [] : [d.file]))),
      settingsKey: JSON.stringify(resolved.diagnostics),
    });
  return { snapshot, diagnostics: snapshot.warnings };
}

// --- internal ---

/** The files the registry's discovery rules read besides the discovered ones (each rule's `reads`). */
function ruleRead(manifest: Manifest, layouts: Layouts, paths: Iterable<string>): string[] {
  const rules = (manifest.registry.discoverFiles?.rules ?? []).flatMap((name) => {
    const rule = layouts.discovery.get(name);
    return rule ? [rule] : [];
  });
  return rules.length === 0 ? [] : [...paths].filter((p) => rules.some((r) => r.reads(p)));
}

/** Read problems of one file that `unreadable: skip` turns into warnings. */
/** Unknown fleet roles given their closest known roles (the rest are said without). */
const CLOSEST_UNKNOWN_ROLES = 64;

const SKIPPABLE: readonly string[] = ['READ_ERROR', 'PATH_OUTSIDE_PACK', 'FILE_TOO_LARGE', 'SPECIAL_FILE'];

/** Reader errors after which the files read are not the pack (none, or a part of it). */
const WHOLE_PACK_CODES: readonly DiagnosticCode[] = [
  'PACK_TOO_LARGE',
  'TOO_MANY_FILES',
  'READ_TIMEOUT',
  'PACK_UNSTABLE',
];

/**
 * The files of the build this one starts from, when that build decoded every path as this
 * one will (the same frontmatter mode and raw globs): a file there whose bytes object is
 * the one this build has is this build's decoding of it.
 */
function earlierDecodings(
  previous: Snapshot | undefined,
  manifest: Snapshot['manifest'],
): ReadonlyMap<string, PackFile> | undefined {
  if (previous === undefined) return undefined;
  const was = previous.manifest;
  const sameRaw = was.raw.length === manifest.raw.length && was.raw.every((g, i) => g === manifest.raw[i]);
  return was.frontmatter === manifest.frontmatter && sameRaw ? previous.files : undefined;
}

/** NO_LAYERS: the manifest composes nothing; says what turned layout detection off. */
function noLayers(root: ManifestPart, rootKey: string, preset: string): Diagnostic {
  const where: Where = root.layersAt ?? { file: root.file, line: 1, col: 1 };
  if (rootKey !== MANIFEST_FILE || root.extends)
    return error('NO_LAYERS', 'the manifest composes nothing: its pipeline has no layers', where);
  return error(
    'NO_LAYERS',
    `${MANIFEST_FILE} composes nothing: it has no layers and no extends, and a ${MANIFEST_FILE} turns off layout detection (without it this pack loads as the ${preset} preset); add "extends: ${preset}" or a layers list`,
    where,
  );
}

/** Whether names are in byte order (checked in one pass; sorting them costs a comparison per step). */
function inByteOrder(names: readonly string[]): boolean {
  for (let i = 1; i < names.length; i++) if (byteOrder(names[i - 1]!, names[i]!) > 0) return false;
  return true;
}

function finish(diagnostics: Diagnostic[]): LoadResult {
  return { diagnostics: sortDiagnostics(diagnostics) };
}

/** Runs `compute` (a build without a memo works each step out once). */
function computeOnce<T>(_bytes: Uint8Array, _step: string, compute: () => T): T {
  return compute();
}

/** A YAML file's parse from its bytes; undefined when they are not UTF-8. */
export function yamlOfBytes(
  path: string,
  bytes: Uint8Array,
  fast?: FastYaml,
  aliases?: AliasBudget,
  scalars?: 'pyyaml',
): ParsedYaml | undefined {
  const text = decodeText(bytes);
  if (text === undefined) return undefined;
  const options: ParseYamlOptions = { file: path, bytes, fast };
  if (aliases) options.aliases = aliases;
  if (scalars) options.scalars = scalars;
  return parseYaml(text, options);
}

/**
 * The role fields layers read as text: those taken whole (`role_field:`, only a string
 * will do) and those a text template names (`{{role.FIELD}}` in `text:` or `append:`,
 * where a number or boolean is written as text, but a list or mapping cannot be).
 */
function roleFieldsOf(manifest: Manifest): { whole: string[]; templated: string[] } {
  const whole = new Set<string>();
  const templated = new Set<string>();
  const template = (text: string | undefined) => {
    for (const name of textPlaceholders(text ?? ''))
      if (name.startsWith('role.')) templated.add(name.slice(5));
  };
  for (const layer of manifest.layers) {
    template(layer.append);
    for (const source of [layer.source, ...(layer.variants ?? []).map((v) => v.source)]) {
      if (source?.kind === 'role_field') whole.add(source.field);
      if (source?.kind === 'text') template(source.text);
    }
    for (const variant of layer.variants ?? []) template(variant.append);
  }
  return { whole: [...whole], templated: [...templated] };
}

/** The kinds of a layer's sources (its own and its variants'). */
function layerSourceKinds(layer: Manifest['layers'][number]): string[] {
  return [...(layer.source ? [layer.source.kind] : []), ...(layer.variants ?? []).map((v) => v.source.kind)];
}
