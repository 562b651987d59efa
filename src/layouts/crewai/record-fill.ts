import type { RecordFill } from '../../core/layout.js';
import { fillCompiledInputs, type TemplatePlaceholder } from '../../core/pack/template.js';

/**
 * CrewAI's `interpolate_only` over a role record value: for each placeholder of the value
 * in order, every `{name}` of the text so far is replaced (Python's `str.replace`), so a
 * value that holds the `{name}` of a later placeholder is filled too (inputs topic =
 * "{year}" and year = "2024" make "{topic} in {year}" "2024 in 2024"). A value without
 * braces in any input fills as the core's one pass does.
 */
export const fillInTurn: RecordFill = (compiled, values, maxLength) => {
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
  return { text };
};
