// Role, team and agent names (docs/pack-format.md, "Role records").

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** True for a valid role, team or agent name: `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`, never containing `..`. */
export function isValidName(name: string): boolean {
  return NAME_RE.test(name) && !name.includes('..');
}
