// The results of pure steps on a file's raw bytes (decoding, hashing, frontmatter and YAML
// parsing), remembered per bytes object. A reload that hands the build step the same bytes
// object for an unchanged file (the folder reader does, by file identity) gets these for
// free; entries live exactly as long as the bytes do (a WeakMap), so nothing here outlives
// the snapshots and reads that hold the bytes. A bytes object holds a few results, kept in
// one flat array (step, path, value, …): a Map per file would cost more than most files.

const memo = new WeakMap<Uint8Array, unknown[]>();

/**
 * `compute()`'s result for these bytes, this step and this path, computed once per bytes
 * object. `step` must name everything else the result depends on (the step and its mode);
 * pass the same few step strings each time (constants), not ones built per file.
 *
 * @example
 * const parsed = memoByBytes(bytes, 'yaml', () => parseYaml(text, { file: path }), path);
 */
export function memoByBytes<T>(bytes: Uint8Array, step: string, compute: () => T, path = ''): T {
  const entries = memo.get(bytes);
  if (entries)
    for (let i = 0; i < entries.length; i += 3)
      if (entries[i] === step && entries[i + 1] === path) return entries[i + 2] as T;
  const value = compute();
  // A new array of the exact size (a grown array keeps spare room: ~20 slots).
  memo.set(bytes, entries ? entries.concat([step, path, value]) : [step, path, value]);
  return value;
}
