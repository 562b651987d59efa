// Minimal glob and path-template matching over pack-relative paths (always `/`). Globs
// come from pack files, so matching must stay cheap whatever the pattern: a glob is run
// as a set of states over the path's characters (time proportional to path length ×
// pattern length, never exponential; no regular expression backtracking).

/** A compiled glob: true when the whole path matches. */
export type GlobMatcher = (path: string) => boolean;

/**
 * Compiles a glob: `*` matches within one path segment, `**` across segments, `**∕`
 * zero or more whole segments, `?` one character other than `/`; everything else is
 * literal.
 *
 * @example
 * compileGlob('roles/**∕*.yaml')('roles/a/b.yaml'); // true
 */
export function compileGlob(glob: string): GlobMatcher {
  const tokens = tokenize(glob);
  return shortcut(tokens) ?? bounded(tokens);
}

/** The general matcher of a glob, without the shortcuts {@link compileGlob} takes (the reference in tests). */
export function globAutomaton(glob: string): GlobMatcher {
  const tokens = tokenize(glob);
  return (path) => run(tokens, path);
}

/**
 * Whether the glob can match a path inside the folder `folder` (pack-relative, no trailing
 * `/`): some path `folder/…` matches it. Cheap as a match: the automaton runs over the
 * folder's path and a `/`, and the answer is whether any state is still alive.
 *
 * @example
 * globHoldsBelow('prompts/**∕*.md')('prompts/team'); // true
 * globHoldsBelow('roles/*.md')('roles/team'); // false
 */
export function globHoldsBelow(glob: string): (folder: string) => boolean {
  const tokens = tokenize(glob);
  return (folder) => run(tokens, `${folder}/`, true);
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

type Token =
  | { kind: 'char'; ch: string }
  /** `?`: one character other than `/`. */
  | { kind: 'one' }
  /** `*`: zero or more characters other than `/`. */
  | { kind: 'star' }
  /** `**`: zero or more characters of any kind. */
  | { kind: 'globstar' }
  /** `**∕`: nothing, or any characters ending with `/`. */
  | { kind: 'segments' };

function tokenize(glob: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      tokens.push({ kind: slash ? 'segments' : 'globstar' });
      i += slash ? 2 : 1;
    } else if (ch === '*') tokens.push({ kind: 'star' });
    else if (ch === '?') tokens.push({ kind: 'one' });
    else tokens.push({ kind: 'char', ch });
  }
  return tokens;
}

/**
 * A direct test for the shapes packs use (`base.md`, `roles/*.md`, `roles/**`,
 * `**∕NOTES.md`, `**∕*.md`), equal to the automaton on every path; undefined for others.
 */
function shortcut(tokens: readonly Token[]): GlobMatcher | undefined {
  const literal = (from: number, to = tokens.length): string | undefined => {
    let out = '';
    for (let i = from; i < to; i++) {
      const t = tokens[i]!;
      if (t.kind !== 'char') return undefined;
      out += t.ch;
    }
    return out;
  };
  const whole = literal(0);
  if (whole !== undefined) return (path) => path === whole;
  const wild = tokens.findIndex((t) => t.kind !== 'char');
  const head = literal(0, wild)!;
  const kind = tokens[wild]!.kind;
  const rest = literal(wild + 1);
  if (rest === undefined) {
    // `segments` then `*` then a literal without `/`: the last segment's ending.
    const tail = kind === 'segments' && wild === 0 && tokens[1]?.kind === 'star' ? literal(2) : undefined;
    if (tail === undefined || tail.includes('/')) return undefined;
    return (path) => path.length - path.lastIndexOf('/') - 1 >= tail.length && path.endsWith(tail);
  }
  if (kind === 'star') {
    const min = head.length + rest.length;
    return (path) =>
      path.length >= min &&
      path.startsWith(head) &&
      path.endsWith(rest) &&
      !path.slice(head.length, path.length - rest.length).includes('/');
  }
  if (kind === 'globstar') {
    const min = head.length + rest.length;
    return (path) => path.length >= min && path.startsWith(head) && path.endsWith(rest);
  }
  if (kind === 'segments' && head === '') {
    const slashed = `/${rest}`;
    return (path) => path === rest || path.endsWith(slashed);
  }
  return undefined;
}

/**
 * The automaton behind a cheap test of what every match has: the literal characters
 * before the first wildcard start the path and those after the last one end it (most
 * paths a pack's globs meet fail there). A folder's files of one kind (`dir/**∕*.md`:
 * the head, then a last segment ending in the tail) are answered without the automaton.
 */
function bounded(tokens: readonly Token[]): GlobMatcher {
  const first = tokens.findIndex((t) => t.kind !== 'char');
  const last = tokens.findLastIndex((t) => t.kind !== 'char');
  const chars = (from: number, to: number) =>
    tokens
      .slice(from, to)
      .map((t) => (t as { ch: string }).ch)
      .join('');
  const head = chars(0, first);
  const tail = chars(last + 1, tokens.length);
  const min = head.length + tail.length;
  const inFolder =
    last === first + 1 &&
    tokens[first]!.kind === 'segments' &&
    tokens[last]!.kind === 'star' &&
    (head === '' || head.endsWith('/')) &&
    !tail.includes('/');
  if (inFolder)
    return (path) =>
      path.length >= min &&
      path.startsWith(head) &&
      path.endsWith(tail) &&
      path.length - Math.max(path.lastIndexOf('/') + 1, head.length) >= tail.length;
  return (path) => path.length >= min && path.startsWith(head) && path.endsWith(tail) && run(tokens, path);
}

/**
 * Simulates the glob's automaton: state `i` means "tokens before i are matched"; state
 * `n + 1 + i` is inside the `.*∕` loop of a `segments` token at i. Each character moves
 * every live state at once, so the work is bounded by states × characters. With `prefix`,
 * whether `path` can be continued into a match.
 */
function run(tokens: readonly Token[], path: string, prefix = false): boolean {
  const n = tokens.length;
  const size = 2 * (n + 1);
  let current = new Uint8Array(size);
  let next = new Uint8Array(size);
  const add = (set: Uint8Array, state: number): void => {
    // Epsilon closure: star-like tokens and the optional `segments` group may match nothing.
    while (state <= n && !set[state]) {
      set[state] = 1;
      const token = tokens[state];
      if (token === undefined) return;
      if (token.kind === 'segments') set[n + 1 + state] = 1;
      else if (token.kind !== 'star' && token.kind !== 'globstar') return;
      state++;
    }
  };
  add(current, 0);
  for (let c = 0; c < path.length; c++) {
    const ch = path[c]!;
    next.fill(0);
    let alive = false;
    for (let s = 0; s < n; s++) {
      if (current[s]) {
        const token = tokens[s]!;
        if (token.kind === 'char') {
          if (token.ch === ch) add(next, s + 1);
        } else if (token.kind === 'one') {
          if (ch !== '/') add(next, s + 1);
        } else if (token.kind === 'star') {
          if (ch !== '/') add(next, s);
        } else if (token.kind === 'globstar') add(next, s);
      }
      if (current[n + 1 + s]) {
        next[n + 1 + s] = 1;
        if (ch === '/') add(next, s + 1);
      }
    }
    for (let s = 0; s < size && !alive; s++) alive = next[s] === 1;
    if (!alive) return false;
    [current, next] = [next, current];
  }
  if (!prefix) return current[n] === 1;
  // A prefix: a state that can take more characters (every state but the last) is alive.
  for (let s = 0; s < size; s++) if (s !== n && current[s] === 1) return true;
  return false;
}
