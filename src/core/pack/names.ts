// Role, team and agent names (docs/pack-format.md, "Role records").

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** True for a valid role, team or agent name: `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`, never containing `..`. */
export function isValidName(name: string): boolean {
  return NAME_RE.test(name) && !name.includes('..');
}

/**
 * True for a role id taken from a file's frontmatter (`registry.discover`): a valid name,
 * or a name as people write one (`name: Frontend Developer`): at most 128
 * characters, none of them `/`, `\`, `:` or a control character, no `..`, not starting
 * with `.` or white space and not ending with white space.
 */
export function isLabelName(name: string): boolean {
  return isValidName(name) || (LABEL_RE.test(name) && !name.includes('..'));
}

// --- internal ---

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const LABEL_RE = /^(?![.\s])[^/\\:\u0000-\u001f\u007f-\u009f]{1,128}(?<!\s)$/u;
