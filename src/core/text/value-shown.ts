/**
 * A value as a diagnostic quotes it: its JSON (cut at 200 characters), a number JSON has
 * no form for as YAML writes it (`.inf`, `-.inf`, `.nan`: JSON would write `null`), or its
 * kind when JSON has no form for it (a bigint, a symbol, a function, a cycle). Never throws.
 */
export function shownValue(raw: unknown): string {
  if (typeof raw === 'number' && !Number.isFinite(raw))
    return Number.isNaN(raw) ? '.nan' : raw > 0 ? '.inf' : '-.inf';
  try {
    const json = JSON.stringify(raw);
    if (json !== undefined) return json.length > 200 ? `${json.slice(0, 200)}…` : json;
  } catch {
    // a bigint, a cycle: said below
  }
  return typeof raw === 'bigint'
    ? `${raw}n`
    : `(${typeof raw === 'object' ? 'an object JSON cannot write: a cycle or deep nesting' : `a ${typeof raw}`})`;
}
