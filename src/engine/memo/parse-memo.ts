// The results of pure steps on a file's raw bytes (whether it is UTF-8, a YAML file's parse),
// remembered per bytes object. (A prompt file's decoding is not kept here: a build takes
// it from the last build's file with the same bytes object, with nothing kept per file.) A
// reload that hands the build step the same bytes for an unchanged file (the folder reader
// does, by file identity) gets these for free. A bytes object is a range of a buffer (a
// reader keeps where each file's bytes are, not a view object: see `sameBytes`), so
// results are kept per buffer (a WeakMap), by where the range starts: nothing here
// outlives the buffers that snapshots and reads hold. (A buffer a first read shares between
// files keeps the results of a file that later changed until the buffer goes: at most one
// result per step and file of that read.) A range holds a few results, kept in one small
// object, or a flat array (step, path, length, value, …) when more.

/**
 * One engine's memo of per-bytes results.
 *
 * @example
 * const memo = new BytesMemo();
 * const parsed = memo.get(bytes, 'yaml', () => parseYaml(text, { file: path }), path);
 */
export class BytesMemo {
  #memo = new WeakMap<ArrayBufferLike, Map<number, Memo | unknown[]>>();

  /**
   * `compute()`'s result for these bytes, this step and this path, computed once per bytes
   * object. `step` must name everything else the result depends on (the step and its mode);
   * pass the same few step strings each time (constants), not ones built per file.
   */
  get<T>(bytes: Uint8Array, step: string, compute: () => T, path = ''): T {
    return memoIn(this.#memo, bytes, step, compute, path);
  }
}

// --- internal ---

function memoIn<T>(
  memo: WeakMap<ArrayBufferLike, Map<number, Memo | unknown[]>>,
  bytes: Uint8Array,
  step: string,
  compute: () => T,
  path: string,
): T {
  let ranges = memo.get(bytes.buffer);
  const at = bytes.byteOffset;
  const length = bytes.byteLength;
  const held = ranges?.get(at);
  if (held instanceof Memo) {
    if (held.step === step && held.path === path && held.length === length) return held.value as T;
  } else if (held)
    for (let i = 0; i < held.length; i += 4)
      if (held[i] === step && held[i + 1] === path && held[i + 2] === length) return held[i + 3] as T;
  const value = compute();
  if (!ranges) {
    ranges = new Map();
    memo.set(bytes.buffer, ranges);
  }
  // Most ranges hold one result: one small object. More results go into a new array of
  // the exact size (a grown array keeps spare room).
  if (held === undefined) ranges.set(at, new Memo(step, path, length, value));
  else
    ranges.set(
      at,
      held instanceof Memo
        ? [held.step, held.path, held.length, held.value, step, path, length, value]
        : held.concat([step, path, length, value]),
    );
  return value;
}

/** One remembered result (an object of four fields: smaller than an array of four). */
class Memo {
  constructor(
    readonly step: string,
    readonly path: string,
    readonly length: number,
    readonly value: unknown,
  ) {}
}
