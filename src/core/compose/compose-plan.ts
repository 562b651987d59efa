import { snapshotCache } from '../../engine/snapshot-cache.js';
import type { Agent } from '../build/fleet.js';
import type { PackFile, Snapshot } from '../build/snapshot.js';
import { describeGate, type Gate } from '../pack/gates.js';
import { takesInputs } from '../pack/inputs.js';
import type { LayerDef, LayerSource, Manifest } from '../pack/manifest.js';
import { isValidName } from '../pack/names.js';
import { normalisePackPath } from '../pack/pack-path.js';
import { pathSettingNames } from '../pack/path-settings.js';
import { type CompiledTemplate, compileTemplate, PATH_PLACEHOLDERS, splitPath } from '../pack/template.js';
import { sha256, utf8Length } from '../text/text.js';

// What compose works out once and then only reads: per snapshot (the fleet by id), per
// manifest (path settings, declared inputs, separator sizes, gate texts, compiled text
// templates) and per file (the byte length of a raw file's text). None of it changes what
// compose returns, only how much each compose does; all of it lives exactly as long as the
// snapshot, manifest or file it is derived from.

/** Derived look-ups of one snapshot, built on its first compose. */
export interface ComposePlan {
  fleet: ReadonlyMap<string, Agent>;
  /** Settings a layer reads a file path from (a request may not set them). */
  pathSettings: ReadonlySet<string>;
  /** Whether the manifest takes request inputs. */
  takesInputs: boolean;
  /** Names of the declared inputs. */
  declaredInputs: ReadonlySet<string>;
  /** UTF-8 length of the manifest's separator. */
  separatorBytes: number;
  /** Role record values with input placeholders, compiled on first use (bounded by the pack's records). */
  recordValues: Map<string, CompiledTemplate>;
  /** Per chain source: the first of its files in a folder (null: none), by folder. */
  chainFiles: Map<LayerSource, Map<string, PackFile | null>>;
  /** Request names checked with isValidName, and the answer (for at most as many names as the pack has files). */
  names: Map<string, boolean>;
  /** Per layer of the manifest, by index (made on the layer's first compose: {@link layerPlan}). */
  layers: (LayerPlan | undefined)[];
}

/** What the composes of one layer of a snapshot look up. */
export interface LayerPlan {
  // The layer's id, separator and gate, read here (every layer plan has one shape, whatever its layer's).
  id: string;
  separator: string | undefined;
  when: Gate | undefined;
  /** Its result when its gate is false, made on first use. */
  gated: GatedResult | undefined;
  /** Its result when none of its variants' gates holds, made on first use. */
  noVariant: GatedResult | undefined;
  /** Per source, by index: the layer's own (0), else each variant's (made on first use: {@link sourcePlan}). */
  sources: (SourcePlan | undefined)[];
  /** The layer's {@link SimpleSource}, null when it is not that simple. */
  simple: SimpleSource | null;
}

/**
 * A layer whose text is a file's prompt as it is (no variants, `append`, byte budget or
 * path setting; trimmed at both ends), found by one path template with one placeholder.
 */
export interface SimpleSource {
  /** The placeholder (undefined: the path has none). */
  name: string | undefined;
  /** The source plan's file (or missing path) by the placeholder's value ('' for a path without one). */
  byValue: Map<string, PackFile | MissingPath | null>;
  plan: SourcePlan;
  /** Whether the layer is skipped quietly when its file is missing (`missing: skip`). */
  skipMissing: boolean;
}

/** The path templates of a file or chain source (none for other kinds), with what their values found. */
export interface SourcePlan {
  paths: PathPlan[];
  /**
   * Per path template with one placeholder or none (by index): by value ('' for none), the
   * file, or the missing path (null: it leaves the pack). Undefined for other templates.
   */
  byValue: (Map<string, PackFile | MissingPath | null> | undefined)[];
  /** The layer's result (frozen, shared) when a placeholder of these paths has no value, made on first use. */
  noValue: { readonly placeholder?: string } | undefined;
}

/** A path a layer looked for and did not find, as a {@link SourcePlan} remembers it for a value. */
export class MissingPath {
  /** The layer's result (frozen, shared) when this is its missing path, made on first use. */
  result: object | undefined;
  constructor(readonly missing: string) {}
}

/** A file's text with a filled `append` template: joined and measured once per file and tail. */
export interface AppendedText {
  text: string;
  bytes: number;
  /** The text's sha256, computed on first read. */
  hash(): string;
}

/**
 * The compose plan of a snapshot, built once.
 *
 * @example
 * composePlan(snapshot).fleet.get('ada')?.role; // 'developer'
 */
export function composePlan(snapshot: Snapshot): ComposePlan {
  let plan = plans.get(snapshot);
  if (!plan) {
    const manifest = manifestPlan(snapshot.manifest);
    // A compose without setting overrides hands these out in its result: frozen once here.
    Object.freeze(snapshot.settings.values);
    Object.freeze(snapshot.settings.sources);
    plan = {
      ...manifest,
      fleet: new Map(snapshot.fleet.map((a) => [a.id, a])),
      recordValues: new Map(),
      chainFiles: new Map(),
      names: new Map(),
      layers: new Array(snapshot.manifest.layers.length),
    };
    plans.set(snapshot, plan);
  }
  return plan;
}

/** {@link isValidName}, remembered per snapshot for at most as many names as the pack has files. */
export function validName(plan: ComposePlan, snapshot: Snapshot, name: string): boolean {
  let valid = plan.names.get(name);
  if (valid === undefined) {
    valid = isValidName(name);
    if (plan.names.size <= snapshot.files.size) plan.names.set(name, valid);
  }
  return valid;
}

/** The plan of the manifest's layer `index` (`layer`), made on its first compose. */
export function layerPlan(plan: ComposePlan, index: number, layer: LayerDef): LayerPlan {
  let lp = plan.layers[index];
  if (lp === undefined) {
    lp = {
      id: layer.id,
      separator: layer.separator,
      when: layer.when,
      gated: undefined,
      noVariant: undefined,
      sources: new Array(layer.variants ? layer.variants.length : 1),
      simple: null,
    };
    lp.simple = simpleSource(lp, layer);
    plan.layers[index] = lp;
  }
  return lp;
}

/** The plan of a layer's source `index` (`source`), made on its first use. */
export function sourcePlan(lp: LayerPlan, index: number, source: LayerSource): SourcePlan {
  let sp = lp.sources[index];
  if (sp === undefined) {
    if (source.kind !== 'file' && source.kind !== 'chain')
      sp = { paths: [], byValue: [], noValue: undefined };
    else {
      const paths = splitPaths(source);
      const byValue = paths.map((p) => (p.parts.length <= 3 ? new Map() : undefined));
      sp = { paths, byValue, noValue: undefined };
    }
    lp.sources[index] = sp;
  }
  return sp;
}

/** A gate's readable form (the reason of a `gated` layer), worked out once per gate. */
export function gateText(gate: Gate): string {
  let text = gateTexts.get(gate);
  if (text === undefined) {
    text = describeGate(gate);
    gateTexts.set(gate, text);
  }
  return text;
}

/** A layer's result when a gate leaves it out (a compose LayerResult). */
export interface GatedResult {
  readonly id: string;
  readonly included: false;
  readonly reason: 'gated';
  readonly kind: 'none';
  readonly gate: string;
}

/**
 * The result of a layer left out by its gate (or by all its variants' gates): the same for
 * every compose of the manifest, so made and frozen once per layer and shared.
 */
export function gatedResult(layer: LayerDef, gate: string): GatedResult {
  let result = gatedResults.get(layer);
  if (result === undefined || result.gate !== gate) {
    result = Object.freeze({ id: layer.id, included: false, reason: 'gated', kind: 'none', gate } as const);
    gatedResults.set(layer, result);
  }
  return result;
}

/** The reason of a layer none of whose variants holds, worked out once per layer. */
export function noVariantText(variants: readonly { when?: Gate }[]): string {
  let text = variantTexts.get(variants);
  if (text === undefined) {
    text = `no variant holds: ${variants.map((v) => (v.when ? describeGate(v.when) : 'always')).join(' | ')}`;
    variantTexts.set(variants, text);
  }
  return text;
}

/** A text source's template, split into literals and placeholders once per source. */
export function compiledText(
  source: Extract<LayerSource, { kind: 'text' }>,
  syntax: Manifest['inputSyntax'],
): CompiledTemplate {
  let compiled = templates.get(source);
  if (!compiled || compiled.syntax !== syntax) {
    compiled = compileTemplate(source.text, syntax);
    templates.set(source, compiled);
  }
  return compiled;
}

/** A path template split once: literals at even indexes, placeholder names at odd ones. */
export interface PathPlan {
  parts: readonly string[];
  /**
   * Whether the literals leave the path normal whatever fills the placeholders, as long as
   * no value holds a `/` or starts with `.` (then the filled path needs no normalising).
   */
  clean: boolean;
}

/** The path templates of a file source (or a chain's one), split once per source. */
export function splitPaths(source: Extract<LayerSource, { kind: 'file' | 'chain' }>): PathPlan[] {
  let split = paths.get(source);
  if (!split) {
    split = (source.kind === 'file' ? source.paths : [source.path]).map((template) => {
      // Placeholder names as the constants they equal: a look-up by one of those is cheaper.
      const parts = splitPath(template).map((p, i) => (i % 2 === 1 ? placeholderName(p) : p));
      const sample = parts.map((p, i) => (i % 2 === 1 ? 'x' : p)).join('');
      return { parts, clean: normalisePackPath(sample) === sample };
    });
    paths.set(source, split);
  }
  return split;
}

/** UTF-8 length of a file's decoded text (for raw files: their lossy decoding), once per file. */
export function textBytes(file: PackFile): number {
  let bytes = fileBytes.get(file);
  if (bytes === undefined) {
    bytes = utf8Length(file.text);
    fileBytes.set(file, bytes);
  }
  return bytes;
}

/**
 * A file's text with an `append` tail, in the shared byte-bounded cache (a snapshot's
 * files are fixed, so the joined text is too).
 */
export function appendedText(snapshot: Snapshot, path: string, text: string, tail: string): AppendedText {
  const key = `${path}\0${tail}`;
  let m = appended.get(snapshot, key);
  if (!m) {
    const full = `${text}\n\n${tail}`;
    let hash: string | undefined;
    m = { text: full, bytes: utf8Length(full), hash: () => (hash ??= sha256(full)) };
    appended.set(snapshot, key, m, full.length * 2 + 256);
  }
  return m;
}

// --- internal ---

type ManifestPlan = Omit<ComposePlan, 'fleet' | 'recordValues' | 'chainFiles' | 'names' | 'layers'>;

const plans = new WeakMap<Snapshot, ComposePlan>();
const manifests = new WeakMap<Manifest, ManifestPlan>();
const gateTexts = new WeakMap<Gate, string>();
const gatedResults = new WeakMap<LayerDef, GatedResult>();
const variantTexts = new WeakMap<object, string>();
const templates = new WeakMap<object, CompiledTemplate>();
const paths = new WeakMap<object, PathPlan[]>();
const fileBytes = new WeakMap<PackFile, number>();
const appended = snapshotCache<AppendedText>('appended');

/** The layer's {@link SimpleSource}, or null when it is not that simple (for its layer plan). */
function simpleSource(lp: LayerPlan, layer: LayerDef): SimpleSource | null {
  let simple: SimpleSource | null = null;
  const source = layer.source;
  if (
    !layer.variants &&
    source?.kind === 'file' &&
    source.pathSetting === undefined &&
    source.paths.length === 1 &&
    layer.append === undefined &&
    layer.maxBytes === undefined &&
    layer.trim === 'both'
  ) {
    const sp = sourcePlan(lp, 0, source);
    const byValue = sp.byValue[0];
    if (byValue !== undefined)
      simple = { name: sp.paths[0]!.parts[1], byValue, plan: sp, skipMissing: layer.missing === 'skip' };
  }
  return simple;
}

function placeholderName(name: string): string {
  for (const known of PATH_PLACEHOLDERS) if (known === name) return known;
  return name;
}

function manifestPlan(manifest: Manifest): ManifestPlan {
  let plan = manifests.get(manifest);
  if (!plan) {
    plan = {
      pathSettings: pathSettingNames(manifest),
      takesInputs: takesInputs(manifest),
      declaredInputs: new Set(manifest.inputs.map((i) => i.name)),
      separatorBytes: utf8Length(manifest.separator),
    };
    manifests.set(manifest, plan);
  }
  return plan;
}
