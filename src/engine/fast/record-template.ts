import type { RoleRecord } from '../../core/build/roles.js';
import type { Snapshot } from '../../core/build/snapshot-types.js';
import type { LayerEnv } from '../../core/compose/env.js';
import { type CompiledTemplate, compileInputs, type TemplatePlaceholder } from '../../core/pack/template.js';
import { ownValue } from '../../core/text/own.js';

// A text layer made only of a role's fields (CrewAI's "You are {{role.role}}. …") is filled
// by the core in two passes per field: the field's input placeholders, then the template
// with the fields. For one record the two flatten into one list: the template's text and
// the fields' text as literals, the fields' input placeholders between them. It is made the
// first time a compose of that record meets the template (the work of this request's
// layer, nothing pack-wide) and kept per pack version, up to 4 Mi characters of them; a
// compose then joins literals and input values once.
//
// The flat fill gives the two passes' text whenever it applies; anything else (a field
// missing or not text, an input without a value, an input value holding a brace, which a
// layout's own fill may read again, a text over the prompt's limit) is left to the two
// passes, which say what is wrong.

/**
 * Characters of flattened templates kept per pack version (a copy of the fields of the
 * records composed, per layer): records composed after it are filled in two passes.
 */
export const RECORD_TEMPLATE_CHARS = 4 * 2 ** 20;

/**
 * An engine's flattened record templates (accelerator `recordTemplates`), kept per
 * snapshot while it lives.
 *
 * @example
 * const templates = new RecordTemplates();
 * tryCompose(snapshot, request, { fillFields: (env, compiled) => templates.fill(env, compiled) });
 */
export class RecordTemplates {
  #kept = new WeakMap<Snapshot, Kept>();

  /**
   * The text of `compiled` (a layer's text template) for the compose's record, its fields'
   * inputs filled as one pass fills them; undefined when the flat fill does not apply (the
   * template holds a placeholder other than a role field, or see above).
   */
  fill(env: LayerEnv, compiled: CompiledTemplate): string | undefined {
    const record = env.record;
    if (record === undefined || env.role === undefined) return undefined;
    const parts = this.#flat(env, compiled, record);
    if (parts === null) return undefined;
    const inputs = env.inputs;
    const maxLength = env.maxBytes;
    const braces = layoutFillsOtherwise(env.snapshot);
    let text = parts[0]!;
    for (let i = 1; i < parts.length; i += 2) {
      const value = ownValue(inputs, parts[i]!);
      if (value === undefined) return undefined;
      if (braces && (value.includes('{') || value.includes('}'))) return undefined;
      text += value + parts[i + 1]!;
      if (text.length > maxLength) return undefined;
    }
    return text.length > maxLength ? undefined : text;
  }

  /** Characters of flattened templates kept for `snapshot` (at most one record's past the bound). */
  charsKept(snapshot: Snapshot): number {
    return this.#kept.get(snapshot)?.chars ?? 0;
  }

  #flat(env: LayerEnv, compiled: CompiledTemplate, record: RoleRecord): Flat {
    let kept = this.#kept.get(env.snapshot);
    if (kept === undefined) {
      kept = { byTemplate: new Map(), chars: 0 };
      this.#kept.set(env.snapshot, kept);
    }
    let byRecord = kept.byTemplate.get(compiled);
    if (byRecord === undefined) {
      byRecord = new Map();
      kept.byTemplate.set(compiled, byRecord);
    }
    let flat = byRecord.get(record);
    if (flat === undefined) {
      // Past the bound, a record's fields are filled in two passes, as without it.
      if (kept.chars >= RECORD_TEMPLATE_CHARS) return null;
      flat = flatten(env, compiled, record);
      for (const part of flat ?? []) kept.chars += part.length;
      byRecord.set(record, flat);
    }
    return flat;
  }
}

// --- internal ---

/**
 * A template flattened for one record: literal text at even indexes, input names at odd
 * ones; null when it cannot be (a placeholder that is no role field, a field the record
 * lacks or holds other than as text).
 */
type Flat = string[] | null;

/** The flat templates of one snapshot, by layer template and record, and how many characters they hold. */
interface Kept {
  byTemplate: Map<CompiledTemplate, Map<RoleRecord, Flat>>;
  chars: number;
}

function flatten(env: LayerEnv, compiled: CompiledTemplate, record: RoleRecord): Flat {
  const { manifest } = env.snapshot;
  const isInput = (name: string) =>
    manifest.openInputs !== undefined || manifest.inputs.some((i) => i.name === name);
  const out: string[] = [compiled.parts[0] as string];
  const literal = (text: string) => {
    out[out.length - 1] += text;
  };
  for (let i = 1; i < compiled.parts.length; i += 2) {
    const field = (compiled.parts[i] as TemplatePlaceholder).field;
    if (field === undefined) return null;
    const raw = ownValue(record.fields, field);
    if (raw === undefined || raw === null || typeof raw === 'object') return null;
    const value = String(raw);
    // The field's inputs, as the core's one pass fills them (`fillRecordValue`). Compiled
    // here, not through the snapshot's look-up by value: each record is flattened once,
    // and keying a map by a long field's text costs as much as compiling it.
    const fieldParts =
      env.takesInputs && value.includes('{') ? compileInputs(value, manifest.inputSyntax).parts : [value];
    literal(fieldParts[0] as string);
    for (let j = 1; j < fieldParts.length; j += 2) {
      const p = fieldParts[j] as TemplatePlaceholder;
      if (isInput(p.single!)) out.push(p.single!, fieldParts[j + 1] as string);
      else literal(p.all + (fieldParts[j + 1] as string));
    }
    literal(compiled.parts[i + 1] as string);
  }
  return out;
}

/** Whether the pack's layout fills record values its own way (then a brace in a value defers). */
function layoutFillsOtherwise(snapshot: Snapshot): boolean {
  return snapshot.preset !== undefined && snapshot.layouts?.get(snapshot.preset)?.fillRecord !== undefined;
}
