// "Did you mean …": the known names closest to an unknown one.

/**
 * The known names closest to `name` by edit distance (insertions, deletions,
 * substitutions and swaps of neighbours, case-insensitive), at most `max` of them, nearest
 * first. A name counts as close when its distance is at most a third of the longer
 * name's length (at least 1), or when one name starts with the other.
 *
 * @example
 * closestNames('adaa', ['ada', 'linus', 'grace']); // ['ada']
 */
export function closestNames(name: string, known: Iterable<string>, max = 3): string[] {
  // Compared in one Unicode form and case: "café" written with a combining accent, or
  // "frontend developer", finds the name the pack spells otherwise.
  const lower = name.normalize('NFC').toLowerCase();
  const scored: Array<{ known: string; distance: number }> = [];
  for (const candidate of new Set(known)) {
    if (candidate === name) continue;
    const other = candidate.normalize('NFC').toLowerCase();
    const distance = editDistance(lower, other);
    const limit = Math.max(1, Math.floor(Math.max(lower.length, other.length) / 3));
    const prefix =
      lower.length >= 2 && other.length >= 2 && (other.startsWith(lower) || lower.startsWith(other));
    if (distance <= limit || prefix) scored.push({ known: candidate, distance });
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

/** A list of known names for a message, shortened past `max` entries. */
export function knownList(names: readonly string[], max = 12): string {
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

// --- internal ---

/** Optimal string alignment distance (Damerau–Levenshtein without repeated edits). */
function editDistance(a: string, b: string): number {
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
