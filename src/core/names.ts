/** SPEC §2.9: role, team and agent names. */
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function isValidName(name: string): boolean {
  return NAME_RE.test(name) && !name.includes('..');
}
