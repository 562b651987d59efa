// The results of pure steps on a file's raw bytes (decoding, hashing, frontmatter and YAML
// parsing), remembered per bytes object. A reload that hands the build step the same bytes
// object for an unchanged file (the folder reader does, by file identity) gets these for
// free; entries live exactly as long as the bytes do (a WeakMap), so nothing here outlives
// the snapshots and reads that hold the bytes.

const memo = new WeakMap<Uint8Array, Map<string, unknown>>();

/**
 * `compute()`'s result for these bytes and this key, computed once per bytes object. The
 * key must name everything else the result depends on (the step, the path, the mode).
 *
 * @example
 * const parsed = memoByBytes(bytes, `yaml\0${path}`, () => parseYaml(text, { file: path }));
 */
export function memoByBytes<T>(bytes: Uint8Array, key: string, compute: () => T): T {
  let entries = memo.get(bytes);
  if (!entries) {
    entries = new Map();
    memo.set(bytes, entries);
  }
  if (entries.has(key)) return entries.get(key) as T;
  const value = compute();
  entries.set(key, value);
  return value;
}
