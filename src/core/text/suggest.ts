// "Did you mean …": the known names closest to an unknown one.

/**
 * The known names closest to `name` by edit distance (insertions, deletions,
 * substitutions and swaps of neighbours, case-insensitive), at most `max` of them, nearest
 * first. A name counts as close when its distance is at most a third of the longer
 * name's length (at least 1), when one name starts with the other, or when one is the
 * other qualified by a prefix (`backend-architect` and `api-scaffolding-backend-architect`,
 * a plugin's or a crew's agent).
 *
 * @example
 * closestNames('adaa', ['ada', 'linus', 'grace']); // ['ada']
 */
export function closestNames(name: string, known: Iterable<string>, max = 3): string[] {
  // Compared in one Unicode form and case: "café" written with a combining accent, or
  // "frontend developer", finds the name the pack spells otherwise.
  const lower = name.normalize('NFC').toLowerCase();
  const scored: Array<{ known: string; distance: number }> = [];
  const rows = new Rows();
  for (const candidate of new Set(known)) {
    if (candidate === name) continue;
    const other = candidate.normalize('NFC').toLowerCase();
    const limit = Math.max(1, Math.floor(Math.max(lower.length, other.length) / 3));
    const prefix =
      lower.length >= 2 && other.length >= 2 && (other.startsWith(lower) || lower.startsWith(other));
    // A name that begins the other, or is it after a qualifying prefix, is as far from it
    // as the rest is long; any other is measured only as far as the limit (a long name
    // against many names costs what the limit allows, not the product of their lengths).
    const near = prefix || qualifies(lower, other) || qualifies(other, lower);
    const distance = near
      ? Math.abs(lower.length - other.length)
      : editDistanceWithin(lower, other, limit, rows);
    if (distance <= limit || near) scored.push({ known: candidate, distance });
  }
  scored.sort((a, b) => a.distance - b.distance || (a.known < b.known ? -1 : a.known > b.known ? 1 : 0));
  return scored.slice(0, max).map((s) => s.known);
}

/** ` (did you mean "a" or "b"?)`, or '' when there is nothing to suggest. */
export function didYouMean(suggestions: readonly string[]): string {
  if (suggestions.length === 0) return '';
  const quoted = suggestions.map((s) => JSON.stringify(s));
  const list = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
  return `; did you mean ${list}?`;
}

/**
 * How many names one message lists (the rest are counted: `… (N in all)`), and how many
 * unknown names of one request (settings, inputs) are said one by one, each with its
 * closest names; the rest are counted in one more diagnostic.
 */
export const LISTED_NAMES = 12;

/** A list of known names for a message, shortened past `max` entries. */
export function knownList(names: readonly string[], max = LISTED_NAMES): string {
  if (names.length === 0) return '(none)';
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')}, … (${names.length} in all)`;
}

/**
 * Whether `written` looks like `meant` mistyped: a different key within one edit of it
 * (two for names of eight characters or more), compared in one Unicode form and case.
 * Stricter than {@link closestNames} (no prefixes): for keys that are data, where a near
 * name is usually a name of its own.
 *
 * @example
 * isTypoOf('descripton', 'description'); // true
 * isTypoOf('system', 'system_prompt'); // false
 */
export function isTypoOf(written: string, meant: string): boolean {
  if (written === meant) return false;
  const a = written.normalize('NFC').toLowerCase();
  const b = meant.normalize('NFC').toLowerCase();
  const limit = Math.max(a.length, b.length) >= 8 ? 2 : 1;
  return Math.abs(a.length - b.length) <= limit && editDistance(a, b) <= limit;
}

/**
 * Optimal string alignment distance (Damerau–Levenshtein without repeated edits), over
 * every cell: what {@link closestNames} measures within a limit.
 *
 * @example
 * editDistance('developre', 'developer'); // 1
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, prev2[j - 2]! + 1);
      row.push(d);
    }
    prev2 = prev;
    prev = row;
  }
  return prev[b.length]!;
}

// --- internal ---

/**
 * {@link editDistance} when it is at most `limit`, else `limit + 1`: only the cells within
 * `limit` of the diagonal are worked out (an alignment that strays further costs more),
 * and the work stops at a row all over the limit.
 */
function editDistanceWithin(a: string, b: string, limit: number, rows: Rows): number {
  const over = limit + 1;
  if (Math.abs(a.length - b.length) > limit) return over;
  if (a === b) return 0;
  if (a.length === 0 || b.length === 0) return Math.max(a.length, b.length);
  const width = b.length + 1;
  let [prev2, prev, row] = rows.of(width);
  prev2.fill(over, 0, width);
  prev.fill(over, 0, width);
  for (let j = 0; j <= Math.min(b.length, limit); j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const lo = Math.max(1, i - limit);
    const hi = Math.min(b.length, i + limit);
    // The cells beside the band read as over the limit; column 0 is i deletions.
    row.fill(over, lo - 1, Math.min(width, hi + 2));
    row[0] = i <= limit ? i : over;
    let rowMin = row[0]!;
    for (let j = lo; j <= hi; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, prev2[j - 2]! + 1);
      row[j] = Math.min(d, over);
      if (row[j]! < rowMin) rowMin = row[j]!;
    }
    // Every alignment crosses each row (a swap from two rows up passes a cell of the row
    // between that costs no more): a row all over the limit ends them all.
    if (rowMin >= over) return over;
    [prev2, prev, row] = [prev, row, prev2];
  }
  return prev[b.length]!;
}

/** Three rows of distances for {@link editDistanceWithin}, reused from one name to the next. */
class Rows {
  #rows = [new Int32Array(0), new Int32Array(0), new Int32Array(0)] as const;

  /** Three rows of at least `width` cells (their contents left as they were). */
  of(width: number): [Int32Array, Int32Array, Int32Array] {
    if (this.#rows[0].length < width) {
      const size = Math.max(width, 2 * this.#rows[0].length);
      this.#rows = [new Int32Array(size), new Int32Array(size), new Int32Array(size)];
    }
    return [...this.#rows];
  }
}

/** Whether `long` is `short` after a qualifying prefix ending in `-`, `_`, `.`, `:`, `/` or a space. */
function qualifies(short: string, long: string): boolean {
  return (
    short.length >= 3 &&
    long.length > short.length &&
    long.endsWith(short) &&
    QUALIFIER_END.includes(long[long.length - short.length - 1]!)
  );
}

/** The characters a qualifying prefix ends with. */
const QUALIFIER_END = '-_.:/ ';
