import { type Diagnostic, error, type Where } from '../text/diagnostics.js';
import { knownList } from '../text/suggest.js';
import { shownValue } from '../text/value-shown.js';
import type { PathSegment } from '../text/yaml.js';
import { type Gate, gateSettings } from './gates.js';
import type {
  ConfigFieldDef,
  DetectDef,
  FleetDef,
  InputDef,
  InputSyntax,
  LayerPatch,
  LayerSource,
  ManifestPart,
  MissingPolicy,
  RegistryDef,
  TrimMode,
  ValueLocator,
  ValueRef,
  VariantDef,
} from './manifest-part.js';
import type { BudgetsSection } from './manifest-tokens.js';
import { type NamedFile, NamedFiles } from './named-files.js';
import { parseSettingValue, type SettingDef } from './settings.js';
import {
  inputPlaceholders,
  PATH_PLACEHOLDERS,
  pathPlaceholders,
  textPlaceholdersWritten,
} from './template.js';
import type { TokenizerName } from './tokenizer-names.js';

export type {
  ConfigFieldDef,
  DetectDef,
  DiscoverDef,
  FleetDef,
  InputDef,
  InputSyntax,
  LayerSource,
  MissingPolicy,
  RegistryDef,
  TrimMode,
  ValueLocator,
  ValueRef,
  VariantDef,
} from './manifest-part.js';

/** One step of the pipeline after `extends` is resolved. */
export interface LayerDef {
  id: string;
  description?: string;
  when?: Gate;
  /** What a missing file or role field means: skipped, a LAYER_MISSING warning, or an error. */
  missing: MissingPolicy;
  source?: LayerSource;
  append?: string;
  variants?: VariantDef[];
  /** How the text is trimmed (default both ends). */
  trim: TrimMode;
  /** The text before this layer when an earlier layer is included (default: the manifest's separator). */
  separator?: string;
  /** A byte budget for the layer's text: a count, or the name of an integer setting. */
  maxBytes?: number | string;
  /** Where the layer was last defined (for load-time errors). */
  at: Where;
}

/** A fully resolved manifest: the pipeline compose runs. */
export interface Manifest {
  name?: string;
  description?: string;
  separator: string;
  fallback: string;
  settings: SettingDef[];
  registry: RegistryDef;
  fleet: FleetDef;
  layers: LayerDef[];
  agentDefaults: Record<string, unknown>;
  /** Declared request inputs, by name. */
  inputs: InputDef[];
  /** Any other name a placeholder uses is an input of this shape. */
  openInputs?: Omit<InputDef, 'name'>;
  /** Placeholder form of inputs in text templates and role record values. */
  inputSyntax: InputSyntax;
  /** `lenient`: frontmatter that does not parse is parsed again with values quoted. */
  frontmatter: 'strict' | 'lenient' | 'none';
  /**
   * What a file the pack selects but the reader could not read (a broken symlink, one
   * leaving the pack, one over the size limit, a special file) means: `error` (the pack
   * does not load) or `skip` (the file is left out, as if absent, with a warning).
   */
  unreadable: 'error' | 'skip';
  /** Globs of the pack files that are read (default: every file). */
  files?: string[];
  /** Hidden folders (names starting with `.`) that are part of the pack. */
  hidden: string[];
  /** Globs of files kept as raw bytes: no frontmatter, no newline change, decoded lossily. */
  raw: string[];
  /** Config fields of `strata config` taken from role record fields. */
  configFields: Record<string, ConfigFieldDef>;
  /** When a pack without a manifest looks like this one (presets). */
  detect?: DetectDef;
  /** `tokenizer:` of the nearest manifest of the extends chain that has one. */
  tokenizer?: TokenizerName;
  /** `budgets:` of the nearest manifest of the extends chain that has one (taken whole). */
  budgets?: BudgetsSection;
  /** The files of the extends chain, the pack's own manifest first. */
  chain: string[];
  /**
   * Files the pack's own manifests name (its fleet file, role files, layer files): part of
   * the pack whatever `files:` selects (see `named-files.ts`).
   */
  named: NamedFile[];
}

export const DEFAULT_SEPARATOR = '\n\n---\n\n';
export const DEFAULT_FALLBACK = 'You are a helpful assistant.';

/** Finds the part an `extends:` names: a preset, or a manifest path relative to `from`. */
export type PartResolver = (
  target: string,
  from: string,
) => { key: string; part?: ManifestPart; diagnostics: Diagnostic[] } | undefined;

/**
 * Follows the `extends` chain from `root`, merges the parts (child over parent) and checks
 * the result: every layer has a source, templates name only known placeholders and
 * settings, gates name known settings, setting defaults have their type. `locate` finds
 * where a value is written, for a problem with it to be said there (else at its layer or
 * setting).
 */
export function resolveManifest(
  root: ManifestPart,
  rootKey: string,
  resolve: PartResolver,
  presetNames: readonly string[],
  locate?: ValueLocator,
): { manifest: Manifest; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const parts: ManifestPart[] = [root];
  const keys = [rootKey];
  let current = root;
  while (current.extends) {
    const { target, at } = current.extends;
    const found = resolve(target, current.file);
    if (!found) {
      diagnostics.push(
        error(
          'UNKNOWN_PRESET',
          `extends ${JSON.stringify(target)}: no such preset or manifest file (presets: ${presetNames.join(', ') || 'none'})`,
          at,
        ),
      );
      break;
    }
    if (keys.includes(found.key)) {
      diagnostics.push(error('EXTENDS_CYCLE', `extends cycle: ${[...keys, found.key].join(' -> ')}`, at));
      break;
    }
    diagnostics.push(...found.diagnostics);
    if (!found.part) break;
    keys.push(found.key);
    parts.push(found.part);
    current = found.part;
  }
  // Layers whose source was written but refused (said where it is written): not said again to have none.
  const refused = new Set<string>();
  const refs: ManifestRefs = { layers: new Map() };
  const where: Locate = (ref, fallback, within) => (ref && locate?.(ref, within)) ?? fallback;
  const manifest = mergeParts(parts.reverse(), diagnostics, refused, refs, where);
  manifest.chain = keys;
  checkManifest(manifest, diagnostics, refused, refs, where);
  return { manifest, diagnostics };
}

// --- internal ---

/** Where a value is written when that is known (see {@link ValueLocator}), else `fallback`. */
type Locate = (ref: ValueRef | undefined, fallback: Where, within?: string) => Where;

/** The layer entry (file and YAML path) that last wrote a value of a layer. */
interface LayerEntry {
  file: string;
  path: PathSegment[];
  variantIndexes?: number[];
}

/** Where the merged manifest's values were written: found only when a problem is said. */
interface ManifestRefs {
  layers: Map<string, Partial<Record<'when' | 'append' | 'maxBytes' | 'source' | 'variants', LayerEntry>>>;
  fallback?: string;
}

function mergeParts(
  parts: ManifestPart[],
  diagnostics: Diagnostic[],
  refused: Set<string>,
  refs: ManifestRefs,
  where: Locate,
): Manifest {
  const m: Manifest = {
    separator: DEFAULT_SEPARATOR,
    fallback: DEFAULT_FALLBACK,
    settings: [],
    registry: { files: [], key: 'roles' },
    fleet: { file: 'fleet.yaml' },
    layers: [],
    agentDefaults: {},
    inputs: [],
    inputSyntax: '{{name}}',
    frontmatter: 'strict',
    unreadable: 'error',
    hidden: [],
    raw: [],
    configFields: {},
    chain: [],
    named: [],
  };
  const named = new NamedFiles();
  const settings = new Map<string, Partial<SettingDef> & { at?: Where }>();
  const inputs = new Map<string, InputDef & { at?: Where }>();
  // The file of the part that last wrote each setting's and input's default.
  const settingDefaults = new Map<string, string>();
  const inputDefaults = new Map<string, string>();
  const ids = new Set<string>();
  for (const part of parts) {
    named.part(part);
    const own = !part.file.startsWith('preset:');
    if (part.name !== undefined) m.name = part.name;
    if (part.description !== undefined) m.description = part.description;
    if (part.separator !== undefined) m.separator = part.separator;
    if (part.fallback !== undefined) {
      m.fallback = part.fallback;
      refs.fallback = part.file;
    }
    for (const s of part.settings) {
      settings.set(s.name, { ...settings.get(s.name), ...definedOnly(s) });
      if (s.default !== undefined) settingDefaults.set(s.name, part.file);
    }
    if (part.registry) m.registry = { ...m.registry, ...definedOnly(part.registry) };
    if (part.fleet) m.fleet = { ...m.fleet, ...definedOnly(part.fleet) };
    if (part.agentDefaults) m.agentDefaults = { ...m.agentDefaults, ...part.agentDefaults };
    for (const i of part.inputs) {
      inputs.set(i.name, { ...inputs.get(i.name), ...i });
      if (i.default !== undefined) inputDefaults.set(i.name, part.file);
    }
    if (part.openInputs) m.openInputs = part.openInputs;
    if (part.inputSyntax) m.inputSyntax = part.inputSyntax;
    if (part.frontmatter) m.frontmatter = part.frontmatter;
    if (part.unreadable) m.unreadable = part.unreadable;
    if (part.files) m.files = part.files;
    if (part.hidden) m.hidden = part.hidden;
    if (part.raw) m.raw = part.raw;
    if (part.configFields) m.configFields = { ...m.configFields, ...part.configFields };
    if (part.detect) m.detect = part.detect;
    if (part.tokenizer !== undefined) m.tokenizer = part.tokenizer;
    if (part.budgets !== undefined) m.budgets = part.budgets;
    for (const patch of part.layers) {
      applyLayerPatch(m.layers, patch, diagnostics, ids);
      noteLayerRefs(refs, part.file, patch);
      if (patch.refusedSource) refused.add(patch.id);
      else if (patch.source || patch.variants || patch.remove) refused.delete(patch.id);
      named.layer(patch, own);
    }
  }
  m.named = named.list();
  const defaultAt = (file: string | undefined, path: PathSegment[], fallback: Where) =>
    where(file === undefined ? undefined : { file, path }, fallback);
  for (const [name, s] of settings) {
    const at = defaultAt(settingDefaults.get(name), ['settings', name, 'default'], s.at ?? {});
    const def = completeSetting(name, s, diagnostics, at);
    if (def) m.settings.push(def);
  }
  for (const { at, ...input } of inputs.values()) {
    // A default (a scalar) of a formatted input is written as its format writes it.
    if (input.default === undefined || input.format !== undefined) {
      m.inputs.push(input);
      continue;
    }
    const parsed = parseSettingValue({ ...input, default: input.default }, input.default);
    if ('problem' in parsed)
      diagnostics.push(
        error(
          'BAD_MANIFEST',
          `input ${input.name}: default ${shownValue(input.default)} is invalid; ${parsed.problem}`,
          defaultAt(
            inputDefaults.get(input.name),
            ['inputs', input.name, 'default'],
            at ?? {
              file: parts[parts.length - 1]?.file,
            },
          ),
        ),
      );
    else m.inputs.push({ ...input, default: parsed.value });
  }
  return m;
}

function applyLayerPatch(
  layers: LayerDef[],
  patch: LayerPatch,
  diagnostics: Diagnostic[],
  ids: Set<string>,
): void {
  // The ids held, kept beside the list: a new layer is placed without a scan.
  const index = ids.has(patch.id) ? layers.findIndex((l) => l.id === patch.id) : -1;
  if (patch.remove) {
    if (index === -1)
      diagnostics.push(error('BAD_MANIFEST', `cannot remove layer ${patch.id}: no such layer`, patch.at));
    else {
      layers.splice(index, 1);
      ids.delete(patch.id);
    }
    return;
  }
  ids.add(patch.id);
  const layer: LayerDef =
    index === -1
      ? { id: patch.id, missing: 'skip', trim: 'both', at: patch.at }
      : { ...layers[index]!, at: patch.at };
  if (patch.trim !== undefined) layer.trim = patch.trim;
  if (patch.separator !== undefined) layer.separator = patch.separator ?? undefined;
  if (patch.maxBytes !== undefined) layer.maxBytes = patch.maxBytes ?? undefined;
  if (patch.description !== undefined) layer.description = patch.description;
  if (patch.missing !== undefined) layer.missing = patch.missing;
  if (patch.when !== undefined) layer.when = patch.when ?? undefined;
  if (patch.append !== undefined) layer.append = patch.append ?? undefined;
  if (patch.source) {
    layer.source = patch.source;
    layer.variants = undefined;
  }
  if (patch.variants !== undefined) {
    layer.variants = patch.variants ?? undefined;
    if (patch.variants) layer.source = undefined;
  }
  const anchor = patch.before ?? patch.after;
  if (index !== -1 && anchor === undefined) {
    layers[index] = layer;
    return;
  }
  if (index !== -1) layers.splice(index, 1);
  if (anchor === undefined) {
    layers.push(layer);
    return;
  }
  const at = layers.findIndex((l) => l.id === anchor);
  if (at === -1) {
    diagnostics.push(
      error(
        'BAD_MANIFEST',
        `layer ${patch.id}: no layer ${JSON.stringify(anchor)} to place it next to`,
        patch.at,
      ),
    );
    layers.push(layer);
    return;
  }
  layers.splice(patch.before !== undefined ? at : at + 1, 0, layer);
}

/** Notes which entry (file, path) wrote each value a layer patch sets. */
function noteLayerRefs(refs: ManifestRefs, file: string, patch: LayerPatch): void {
  if (patch.remove) {
    refs.layers.delete(patch.id);
    return;
  }
  const layer = refs.layers.get(patch.id) ?? {};
  refs.layers.set(patch.id, layer);
  // A patch read without its text (a preset) names no entry: its values are said at the layer.
  const entry: LayerEntry | undefined = patch.path && { file, path: patch.path };
  if (entry && patch.variantIndexes) entry.variantIndexes = patch.variantIndexes;
  if (patch.when !== undefined) layer.when = entry;
  if (patch.append !== undefined) layer.append = entry;
  if (patch.maxBytes !== undefined) layer.maxBytes = entry;
  if (patch.source) {
    layer.source = entry;
    layer.variants = undefined;
  }
  if (patch.variants !== undefined) {
    layer.variants = entry;
    if (patch.variants) layer.source = undefined;
  }
}

/** `at`: where the default is written (or the setting, when the default is not written). */
function completeSetting(
  name: string,
  s: Partial<SettingDef> & { at?: Where },
  diagnostics: Diagnostic[],
  defaultAt: Where,
): SettingDef | undefined {
  const at = s.at ?? {};
  const type =
    s.type ??
    (s.values
      ? 'enum'
      : typeof s.default === 'boolean'
        ? 'boolean'
        : typeof s.default === 'number'
          ? 'integer'
          : 'string');
  if (type === 'enum' && (!s.values || s.values.length === 0)) {
    diagnostics.push(error('BAD_MANIFEST', `setting ${name}: an enum needs values`, at));
    return undefined;
  }
  const fallbackDefault =
    type === 'boolean' ? false : type === 'integer' ? 0 : type === 'enum' ? s.values![0]! : '';
  const def: SettingDef = { name, type, default: s.default ?? fallbackDefault };
  if (s.env !== undefined) def.env = s.env;
  if (s.values !== undefined) def.values = s.values;
  if (s.min !== undefined) def.min = s.min;
  if (s.max !== undefined) def.max = s.max;
  if (s.description !== undefined) def.description = s.description;
  const parsed = parseSettingValue(def, def.default);
  if ('problem' in parsed) {
    diagnostics.push(
      error(
        'BAD_MANIFEST',
        `setting ${name}: default ${shownValue(def.default)} is invalid; ${parsed.problem}`,
        defaultAt,
      ),
    );
    return undefined;
  }
  def.default = parsed.value;
  return def;
}

function checkManifest(
  m: Manifest,
  diagnostics: Diagnostic[],
  refused: ReadonlySet<string>,
  refs: ManifestRefs,
  where: Locate,
): void {
  const settings = new Map(m.settings.map((s) => [s.name, s]));
  const ids = new Set<string>();
  const inputs = new Set(m.inputs.map((i) => i.name));
  for (const name of inputs)
    if (settings.has(name) && m.inputSyntax === '{{name}}')
      diagnostics.push(
        error('BAD_MANIFEST', `input ${name} has the name of a setting; {{${name}}} would be ambiguous`, {
          file: m.chain[0],
        }),
      );
  const isInput = (name: string) => inputs.has(name) || m.openInputs !== undefined;
  // `at(within)`: where the value is written, or the text `within` it (a placeholder).
  const checkText = (template: string | undefined, at: At, what: string, fields = false) => {
    for (const [name, written] of textPlaceholdersWritten(template ?? '')) {
      if (settings.has(name)) continue;
      if (fields && name.startsWith('role.')) continue;
      if (m.inputSyntax === '{{name}}' && isInput(name)) continue;
      diagnostics.push(
        error(
          'UNKNOWN_PLACEHOLDER',
          `${what}: unknown placeholder {{${name}}}; known settings: ${knownList([...settings.keys()])}${inputs.size > 0 ? `; inputs: ${knownList([...inputs])}` : ''}`,
          at(written),
        ),
      );
    }
    if (m.inputSyntax === '{name}')
      for (const name of inputPlaceholders(template ?? '', '{name}'))
        if (!isInput(name))
          diagnostics.push(
            error(
              'UNKNOWN_PLACEHOLDER',
              `${what}: unknown input {${name}}; inputs: ${[...inputs].join(', ') || '(none)'}`,
              at(`{${name}}`),
            ),
          );
  };
  const checkPath = (path: string, at: At, what: string) => {
    for (const name of pathPlaceholders(path)) {
      if ((PATH_PLACEHOLDERS as readonly string[]).includes(name) || inputs.has(name)) continue;
      diagnostics.push(
        error(
          'UNKNOWN_PLACEHOLDER',
          `${what}: unknown placeholder {${name}} in ${JSON.stringify(path)}; known: ${[...PATH_PLACEHOLDERS, ...inputs].map((p) => `{${p}}`).join(', ')}`,
          at(`{${name}}`),
        ),
      );
    }
  };
  const checkGate = (gate: Gate | undefined, at: At, what: string) => {
    for (const name of gate ? gateSettings(gate) : []) {
      if (!settings.has(name))
        diagnostics.push(
          error('UNKNOWN_SETTING', `${what}: gate reads unknown setting ${JSON.stringify(name)}`, at()),
        );
    }
  };
  // `at(key, within)`: where the entry's `key` (file, text, chain) is written.
  const checkSource = (
    source: LayerSource,
    at: (key: PathSegment[], within?: string) => Where,
    what: string,
  ) => {
    if (source.kind === 'text') checkText(source.text, (w) => at(['text'], w), what, true);
    if (source.kind === 'chain') checkPath(source.path, (w) => at(['chain', 'path'], w), what);
    if (source.kind !== 'file') return;
    for (const path of source.paths) checkPath(path, (w) => at(['file'], w), what);
    if (source.pathSetting !== undefined && settings.get(source.pathSetting)?.type !== 'string') {
      diagnostics.push(
        error(
          'UNKNOWN_SETTING',
          `${what}: path_setting ${JSON.stringify(source.pathSetting)} is not a string setting`,
          at(['path_setting']),
        ),
      );
    }
  };
  for (const layer of m.layers) {
    const what = `layer ${layer.id}`;
    const r = refs.layers.get(layer.id) ?? {};
    // Where the value at `key` of the entry that wrote it is (else the layer).
    const valueAt =
      (entry: LayerEntry | undefined, key: PathSegment[]) =>
      (within?: string): Where =>
        where(entry && { file: entry.file, path: [...entry.path, ...key] }, layer.at, within);
    if (ids.has(layer.id))
      diagnostics.push(error('BAD_MANIFEST', `duplicate layer id ${layer.id}`, layer.at));
    ids.add(layer.id);
    if (!layer.source && !layer.variants?.length && !refused.has(layer.id)) {
      diagnostics.push(
        error(
          'BAD_MANIFEST',
          `${what} has no source: give file, input, role_field, text, chain or variants`,
          layer.at,
        ),
      );
    }
    checkGate(layer.when, valueAt(r.when, ['when']), what);
    checkText(layer.append, valueAt(r.append, ['append']), what);
    if (typeof layer.maxBytes === 'string' && settings.get(layer.maxBytes)?.type !== 'integer')
      diagnostics.push(
        error(
          'UNKNOWN_SETTING',
          `${what}: max_bytes ${JSON.stringify(layer.maxBytes)} is not an integer setting`,
          valueAt(r.maxBytes, ['max_bytes'])(),
        ),
      );
    if (layer.source) checkSource(layer.source, (key, w) => valueAt(r.source, key)(w), what);
    for (const [i, v] of (layer.variants ?? []).entries()) {
      const entry = r.variants;
      const vp = (key: PathSegment[]) => ['variants', entry?.variantIndexes?.[i] ?? i, ...key];
      checkGate(v.when, valueAt(entry, vp(['when'])), what);
      checkText(v.append, valueAt(entry, vp(['append'])), what);
      checkSource(v.source, (key, w) => valueAt(entry, vp(key))(w), what);
    }
  }
  const fallbackRef = refs.fallback === undefined ? undefined : { file: refs.fallback, path: ['fallback'] };
  checkText(m.fallback, (w) => where(fallbackRef, { file: m.chain[0] }, w), 'fallback');
}

/** Where a checked value is written; with `within`, a text inside it (a placeholder). */
type At = (within?: string) => Where;

function definedOnly<T extends object>(obj: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(obj).filter(([k, v]) => v !== undefined && k !== 'name'),
  ) as Partial<T>;
}
