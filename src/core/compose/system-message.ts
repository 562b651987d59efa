import type { RoleRecord } from '../build/roles.js';
import type { Snapshot } from '../build/snapshot-types.js';
import { type Diagnostic, warning } from '../text/diagnostics.js';
import { ownValue } from '../text/own.js';
import { fieldLine } from './segments.js';

// Some frameworks send an agent no system message when its record says so (a template of
// its own for the whole prompt, or the system message turned off): the text composed for
// it is then what the framework puts into the user message. A compose of such a role
// says so (NO_SYSTEM_MESSAGE), with the fields and where they are written; the registry
// names those fields (`registry.no_system_message`).

/**
 * NO_SYSTEM_MESSAGE for a role record whose fields turn its system message off, by the
 * registry's `no_system_message` (undefined when none does, or the registry names none).
 *
 * @example
 * noSystemMessage(snapshot, record); // "role writer sets use_system_prompt: false: with it …", at agents.yaml:13
 */
export function noSystemMessage(snapshot: Snapshot, record: RoleRecord): Diagnostic | undefined {
  const rule = snapshot.manifest.registry.noSystemMessage;
  // Most records set none of the fields: said without making anything (every compose asks).
  if (rule === undefined || !turnsOff(rule, record.fields)) return undefined;
  const said: Array<{ field: string; shown: string; line: number | undefined }> = [];
  const say = (field: string, shown: string) => {
    const line = fieldLine({ snapshot, role: record.id, source: record.source }, field);
    said.push({ field, shown, line });
  };
  for (const field of rule.whenSet) {
    const value = ownValue(record.fields, field);
    if (value !== undefined && !isEmpty(value)) say(field, field);
  }
  for (const field of rule.whenFalse) {
    const value = ownValue(record.fields, field);
    if (value !== undefined && (isEmpty(value) || readsFalse(value)))
      say(field, `${field}: ${value === null ? 'null' : JSON.stringify(value)}`);
  }
  if (said.length === 0) return undefined;
  // Where the first is written is the diagnostic's place; the others' lines are said.
  const [first, ...more] = said as [(typeof said)[0], ...typeof said];
  const others = more.map((s) => (s.line === undefined ? s.shown : `${s.shown} (line ${s.line})`));
  return warning(
    'NO_SYSTEM_MESSAGE',
    `role ${record.id} sets ${[first.shown, ...others].join(' and ')}: with ${said.length === 1 ? 'it' : 'these'} the agent's framework sends it no system message, and puts the text composed here into its user message instead`,
    first.line === undefined ? { file: record.source } : { file: record.source, line: first.line },
  );
}

// --- internal ---

/** Whether any of a record's fields turns its system message off, by the registry's rule. */
function turnsOff(
  rule: { whenSet: readonly string[]; whenFalse: readonly string[] },
  fields: object,
): boolean {
  const own = fields as Record<string, unknown>;
  for (const field of rule.whenSet) {
    const value = ownValue(own, field);
    if (value !== undefined && !isEmpty(value)) return true;
  }
  for (const field of rule.whenFalse) {
    const value = ownValue(own, field);
    if (value !== undefined && (isEmpty(value) || readsFalse(value))) return true;
  }
  return false;
}

/** A text a boolean field reads as false (as pydantic reads `"False"`, `"no"`, `"0"`: any case, around blanks). */
function readsFalse(value: unknown): boolean {
  return typeof value === 'string' && /^(?:false|f|no|n|off|0)$/i.test(value.trim());
}

/** A value a record's framework reads as no value: null, false, 0, an empty text, list or mapping. */
function isEmpty(value: unknown): boolean {
  if (value === null || value === false || value === 0 || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object' && !(value instanceof Date)) return Object.keys(value).length === 0;
  return false;
}
