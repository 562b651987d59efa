/** Minimal glob and path-template matching over pack-relative paths (always `/`). */

const compiled = new Map<string, RegExp>();

/** `*` matches within one path segment, `**` across segments, `?` one character. */
export function globToRegExp(glob: string): RegExp {
  let regexp = compiled.get(glob);
  if (!regexp) {
    regexp = compile(glob);
    compiled.set(glob, regexp);
  }
  return regexp;
}

/**
 * Turns a path template with one placeholder (`roles/{role}.md`) into a matcher that
 * returns the placeholder's value for a matching path.
 */
export function templateMatcher(template: string): (path: string) => string | undefined {
  const parts = template.split(/\{[A-Za-z_][A-Za-z0-9_]*\}/);
  const re = new RegExp(`^${parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('([^/]+)')}$`);
  return (path) => re.exec(path)?.[1];
}

// --- internal ---

function compile(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}
