import { derived } from '../build/derived.js';
import type { Snapshot } from '../build/snapshot-types.js';
import {
  type CompiledTemplate,
  compileInputs,
  fillCompiledInputs,
  type TemplatePlaceholder,
  type TemplateValues,
} from '../pack/template.js';
import { ownValue } from '../text/own.js';
import { Stamped } from '../text/stamped.js';
import { utf8Length } from '../text/text.js';
import { type ParsedYaml, parseYaml } from '../text/yaml.js';
import type { LayerEnv } from './env.js';
import type { LayerFinish } from './lazy-hash.js';
import type { LayerResult, LayerSegment } from './types.js';

// Where each piece of a text template layer's text comes from: the template's own text,
// each role record field (with the file and line it is written on), each setting, and each
// request input (on its own, or filled into a field's value).

/**
 * Gives a text template layer's result its `segments` (see {@link templateSegments}),
 * worked out when the result's layers are first read: a compose read only for its text
 * never pays for them. They are read after the compose placed the layer (`layer.start`),
 * and frozen with it. The property is made now, so it keeps its place among the layer's.
 */
export function attachSegments(
  layer: LayerResult,
  env: LayerEnv,
  compiled: CompiledTemplate,
  /** Each placeholder's value, in order (or what works them out, when the layers are read). */
  pieces: readonly string[] | (() => readonly string[]),
  values: TemplateValues,
  filled: string,
  text: string,
): void {
  layer.segments = undefined;
  env.hashes.push(layer, new SegmentsOf(env, compiled, pieces, values, filled, text));
}

/** A layer's segments, made when its result's layers are first read. */
class SegmentsOf implements LayerFinish {
  // What the compose may change after this layer (the env is shared by every layer).
  readonly #at: SegmentEnv;
  constructor(
    env: LayerEnv,
    private readonly compiled: CompiledTemplate,
    private readonly pieces: readonly string[] | (() => readonly string[]),
    private readonly values: TemplateValues,
    private readonly filled: string,
    private readonly text: string,
  ) {
    this.#at = { snapshot: env.snapshot, role: env.role, record: env.record, takesInputs: env.takesInputs };
  }
  finish(layer: LayerResult): void {
    const { compiled, values, filled, text } = this;
    const pieces = typeof this.pieces === 'function' ? this.pieces() : this.pieces;
    layer.segments = templateSegments(this.#at, compiled, pieces, values, filled, text, layer.start ?? 0);
  }
}

/**
 * The segments of a text template layer's text: `filled` is the template filled
 * (`pieces`: each placeholder's value, in order), `text` that text as the layer trims it.
 * Ranges are UTF-8 byte offsets into the result's text, where the layer starts at `offset`.
 */
export function templateSegments(
  env: SegmentEnv,
  compiled: CompiledTemplate,
  pieces: readonly string[],
  values: TemplateValues,
  filled: string,
  text: string,
  offset: number,
): LayerSegment[] {
  const spans: Span[] = [];
  let at = 0;
  compiled.parts.forEach((part, i) => {
    if (typeof part === 'string') {
      if (part !== '') spans.push({ kind: 'template', from: at, to: at + part.length });
      at += part.length;
      return;
    }
    const value = pieces[(i - 1) / 2] ?? '';
    spans.push({ ...placeholderSpan(env, part, values, value), from: at, to: at + value.length });
    at += value.length;
  });
  // The layer's trim: pieces cut to the text kept, in its offsets.
  const lead = filled.indexOf(text);
  const bytesAt = (char: number) => offset + utf8Length(text.slice(0, char));
  const segment = (span: Span, base: number): LayerSegment | undefined => {
    const from = Math.max(base + span.from, lead);
    const to = Math.min(base + span.to, lead + text.length);
    if (to <= from) return undefined;
    const out = { kind: span.kind } as LayerSegment;
    if (span.name !== undefined) out.name = span.name;
    if (span.source !== undefined) {
      out.source = span.source;
      new LineSource(out, { snapshot: env.snapshot, role: env.role!, source: span.source }, span.name!);
      // One shared getter: a getter of its own per segment would give every segment a shape
      // of its own (thousands of shapes slow every look-up that meets them).
      Object.defineProperty(out, 'line', LINE_PROPERTY);
    }
    out.start = bytesAt(from - lead);
    out.end = bytesAt(to - lead);
    out.bytes = out.end - out.start;
    const inputs = span.inputs?.flatMap((s) => segment(s, base + span.from) ?? []);
    if (inputs && inputs.length > 0) out.inputs = inputs;
    return out;
  };
  return spans.flatMap((s) => segment(s, 0) ?? []);
}

// --- internal ---

/** What segments are worked out from: the compose's snapshot, role and record. */
type SegmentEnv = Pick<LayerEnv, 'snapshot' | 'role' | 'record' | 'takesInputs'>;

interface Span {
  kind: LayerSegment['kind'];
  name?: string;
  source?: string;
  from: number;
  to: number;
  inputs?: Span[];
}

/** What a placeholder of the template is: a role field (with the inputs filled into it), a setting, an input. */
function placeholderSpan(
  env: SegmentEnv,
  p: TemplatePlaceholder,
  values: TemplateValues,
  value: string,
): Omit<Span, 'from' | 'to'> {
  const name = p.double ?? p.single!;
  if (p.field !== undefined) {
    const field = p.field;
    const span: Omit<Span, 'from' | 'to'> = { kind: 'field', name: field };
    if (env.record?.source !== undefined) span.source = env.record.source;
    const inputs = fieldInputs(env, field, values, value);
    if (inputs) span.inputs = inputs;
    return span;
  }
  if (p.double !== undefined && Object.hasOwn(values.settings, p.double)) return { kind: 'setting', name };
  return { kind: 'input', name };
}

/**
 * The inputs filled into a role field's value, each with its range in the filled value;
 * undefined when the value holds none, or when the layout's fill gave other text than one
 * pass (an input whose value holds another's placeholder: the ranges would not say it).
 */
function fieldInputs(
  env: SegmentEnv,
  field: string,
  values: TemplateValues,
  filled: string,
): Span[] | undefined {
  const raw = env.record && ownValue(env.record.fields, field);
  if (!env.takesInputs || typeof raw !== 'string' || !raw.includes('{')) return undefined;
  const compiled = compileInputs(raw, env.snapshot.manifest.inputSyntax);
  if (compiled.parts.length === 1) return undefined;
  const pieces: string[] = [];
  const once = fillCompiledInputs(compiled, values, Number.POSITIVE_INFINITY, pieces);
  if (!('text' in once) || once.text !== filled) return undefined;
  const spans: Span[] = [];
  let at = 0;
  compiled.parts.forEach((part, i) => {
    if (typeof part === 'string') {
      at += part.length;
      return;
    }
    const value = pieces[(i - 1) / 2] ?? '';
    if (values.isInput(part.single!))
      spans.push({ kind: 'input', name: part.single!, from: at, to: at + value.length });
    at += value.length;
  });
  return spans;
}

/** Where a segment's field is written: read by its `line` getter. */
class LineSource extends Stamped {
  #where: FieldWhere;
  #field: string;
  constructor(segment: LayerSegment, where: FieldWhere, field: string) {
    super(segment);
    this.#where = where;
    this.#field = field;
  }
  static line(segment: object): number | undefined {
    const source = segment as LineSource;
    return fieldLine(source.#where, source.#field);
  }
}

const LINE_PROPERTY: PropertyDescriptor = Object.freeze({
  enumerable: true,
  get(this: object) {
    return LineSource.line(this);
  },
});

interface FieldWhere {
  snapshot: Snapshot;
  role: string;
  source: string;
}

/** The line a role's field is written on in a YAML registry file (undefined elsewhere). */
export function fieldLine(where: FieldWhere, field: string): number | undefined {
  const { snapshot, role, source } = where;
  if (!/\.ya?ml$/i.test(source)) return undefined;
  const parsed = derived(snapshot, 'registry-yaml', () => new Map<string, ParsedYaml | undefined>());
  if (!parsed.has(source)) {
    const text = snapshot.files.get(source)?.text;
    parsed.set(source, text === undefined ? undefined : parseYaml(text, { file: source }));
  }
  const key = snapshot.manifest.registry.key;
  return parsed.get(source)?.locate(key === '' ? [role, field] : [key, role, field]).line;
}
