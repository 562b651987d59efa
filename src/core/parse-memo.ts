// The results of pure steps on a file's raw bytes (whether it is UTF-8, a YAML file's parse),
// remembered per bytes object. (A prompt file's decoding is not kept here: a build takes
// it from the last build's file with the same bytes object, with nothing kept per file.) A reload that hands the build step the same bytes
// object for an unchanged file (the folder reader does, by file identity) gets these for
// free; entries live exactly as long as the bytes do (a WeakMap), so nothing here outlives
// the snapshots and reads that hold the bytes. A bytes object holds a few results, kept in
// one small object, or a flat array (step, path, value, …) when more: a Map per file would
// cost more than most files.

import { decodeText } from './text.js';
import { type ParsedYaml, parseYaml } from './yaml.js';

const memo = new WeakMap<Uint8Array, Memo | unknown[]>();

/**
 * `compute()`'s result for these bytes, this step and this path, computed once per bytes
 * object. `step` must name everything else the result depends on (the step and its mode);
 * pass the same few step strings each time (constants), not ones built per file.
 *
 * @example
 * const parsed = memoByBytes(bytes, 'yaml', () => parseYaml(text, { file: path }), path);
 */
export function memoByBytes<T>(bytes: Uint8Array, step: string, compute: () => T, path = ''): T {
  const held = memo.get(bytes);
  if (held instanceof Memo) {
    if (held.step === step && held.path === path) return held.value as T;
  } else if (held)
    for (let i = 0; i < held.length; i += 3)
      if (held[i] === step && held[i + 1] === path) return held[i + 2] as T;
  const value = compute();
  // Most bytes objects hold one result (a prompt file's decoding): one small object. More
  // results go into a new array of the exact size (a grown array keeps spare room).
  if (held === undefined) memo.set(bytes, new Memo(step, path, value));
  else
    memo.set(
      bytes,
      held instanceof Memo
        ? [held.step, held.path, held.value, step, path, value]
        : held.concat([step, path, value]),
    );
  return value;
}

/**
 * A YAML file's parse, once per bytes object; undefined when the bytes are not UTF-8.
 * Its text is not kept (the parse keeps what it needs, see `ParseYamlOptions.bytes`).
 */
export function yamlOfBytes(path: string, bytes: Uint8Array): ParsedYaml | undefined {
  return memoByBytes(
    bytes,
    'yaml',
    () => {
      const text = decodeText(bytes);
      return text === undefined ? undefined : parseYaml(text, { file: path, bytes });
    },
    path,
  );
}

// --- internal ---

/** One remembered result (an object of three fields: smaller than an array of three). */
class Memo {
  constructor(
    readonly step: string,
    readonly path: string,
    readonly value: unknown,
  ) {}
}
