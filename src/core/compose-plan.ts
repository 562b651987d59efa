import type { Agent } from './fleet.js';
import { describeGate, type Gate } from './gates.js';
import { takesInputs } from './inputs.js';
import type { LayerDef, LayerSource, Manifest } from './manifest.js';
import { normalisePackPath } from './pack-path.js';
import { pathSettingNames } from './path-settings.js';
import type { PackFile, Snapshot } from './snapshot.js';
import { snapshotCache } from './snapshot-cache.js';
import { type CompiledTemplate, compileTemplate, splitPath } from './template.js';
import { sha256, utf8Length } from './text.js';

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
  /** Per layer of the manifest, by index. */
  layers: LayerPlan[];
}

/** What the composes of one layer of a snapshot look up. */
export interface LayerPlan {
  /** Its result when its gate is false, made on first use. */
  gated?: GatedResult;
  /** Its result when none of its variants' gates holds, made on first use. */
  noVariant?: GatedResult;
  /** Per source, by index: the layer's own (0), else each variant's. */
  sources: SourcePlan[];
}

/** The path templates of a file or chain source (none for other kinds), with what their values found. */
export interface SourcePlan {
  paths: PathPlan[];
  /**
   * Per path template with one placeholder (by index): by value, the file, or the missing
   * path (null: it leaves the pack). Undefined for other templates.
   */
  byValue: (Map<string, PackFile | MissingPath | null> | undefined)[];
}

/** A path a layer looked for and did not find, as a {@link SourcePlan} remembers it for a value. */
export class MissingPath {
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
    plan = {
      ...manifest,
      fleet: new Map(snapshot.fleet.map((a) => [a.id, a])),
      recordValues: new Map(),
      chainFiles: new Map(),
      layers: snapshot.manifest.layers.map(layerPlan),
    };
    plans.set(snapshot, plan);
  }
  return plan;
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
      const parts = splitPath(template);
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

type ManifestPlan = Omit<ComposePlan, 'fleet' | 'recordValues' | 'chainFiles' | 'layers'>;

const plans = new WeakMap<Snapshot, ComposePlan>();
const manifests = new WeakMap<Manifest, ManifestPlan>();
const gateTexts = new WeakMap<Gate, string>();
const gatedResults = new WeakMap<LayerDef, GatedResult>();
const variantTexts = new WeakMap<object, string>();
const templates = new WeakMap<object, CompiledTemplate>();
const paths = new WeakMap<object, PathPlan[]>();
const fileBytes = new WeakMap<PackFile, number>();
const appended = snapshotCache<AppendedText>('appended');

function layerPlan(layer: LayerDef): LayerPlan {
  const sources = layer.variants ? layer.variants.map((v) => v.source) : [layer.source!];
  return { sources: sources.map(sourcePlan) };
}

function sourcePlan(source: LayerSource): SourcePlan {
  if (source.kind !== 'file' && source.kind !== 'chain') return { paths: [], byValue: [] };
  const paths = splitPaths(source);
  return { paths, byValue: paths.map((p) => (p.parts.length === 3 ? new Map() : undefined)) };
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
