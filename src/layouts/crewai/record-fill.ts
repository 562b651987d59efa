import type { RecordField, RecordFill } from '../../core/layout.js';
import type { FillOutcome } from '../../core/pack/template.js';
import { fillCompiledInputs, type TemplatePlaceholder } from '../../core/pack/template.js';

/**
 * CrewAI's `interpolate_only` over a role record value: for each placeholder of the value
 * in order, every `{name}` of the text so far is replaced (Python's `str.replace`), so a
 * value that holds the `{name}` of a later placeholder is filled too (inputs topic =
 * "{year}" and year = "2024" make "{topic} in {year}" "2024 in 2024"). A value without
 * braces in any input fills as the core's one pass does. Then, for the role and goal (with
 * braces in an input), CrewAI's `Prompts._build_prompt`: it replaces `{goal}`, then
 * `{role}`, then `{backstory}` over the whole role-playing text, so an input's `{role}` or
 * `{backstory}` in the goal, or its `{backstory}` in the role, is that field's text.
 */
export const fillInTurn: RecordFill = (compiled, values, maxLength, field) => {
  const once = fillCompiledInputs(compiled, values, maxLength);
  if (!('text' in once) || compiled.syntax !== '{name}') return once;
  const parts = compiled.parts;
  let braces = false;
  for (let i = 1; i < parts.length && !braces; i += 2) {
    const name = (parts[i] as TemplatePlaceholder).single!;
    const v = values.isInput(name) ? values.input(name) : undefined;
    if (v !== undefined && (v.includes('{') || v.includes('}'))) braces = true;
  }
  if (!braces) return once;
  let text = '';
  for (const part of parts) text += typeof part === 'string' ? part : part.all;
  for (let i = 1; i < parts.length; i += 2) {
    const name = (parts[i] as TemplatePlaceholder).single!;
    if (!values.isInput(name)) continue;
    // split/join: a replacement string's `$&` and `$1` are text here, as in Python. The
    // text it makes is measured first: a value holding many later placeholders would
    // otherwise multiply (each replacement can grow the text by its count of them).
    const pieces = text.split(`{${name}}`);
    const value = values.input(name)!;
    const grown = text.length + (pieces.length - 1) * (value.length - name.length - 2);
    if (grown > maxLength) return { tooLarge: true };
    text = pieces.join(value);
  }
  return field ? fieldsInTurn(text, field, maxLength) : { text };
};

/** The fields `_build_prompt` replaces after each field's own text is in (goal, then role, then backstory). */
const REPLACED_AFTER: Readonly<Record<string, readonly string[]>> = {
  goal: ['role', 'backstory'],
  role: ['backstory'],
};

/** `text` (the field `field`) with `{role}` and `{backstory}` replaced as `_build_prompt` replaces them in it. */
function fieldsInTurn(text: string, field: RecordField, maxLength: number): FillOutcome {
  for (const name of REPLACED_AFTER[field.name] ?? []) {
    const pieces = text.split(`{${name}}`);
    if (pieces.length === 1) continue;
    const other = field.other(name);
    // A field that is no text: no agent for CrewAI; the layer says it is missing.
    if (other === undefined) continue;
    if (!('text' in other)) return other;
    if (text.length + (pieces.length - 1) * (other.text.length - name.length - 2) > maxLength)
      return { tooLarge: true };
    text = pieces.join(other.text);
  }
  return { text };
}
