import { Buffer } from 'node:buffer';

// Whether two byte views are one file's bytes, as a reader kept them.

/**
 * Whether `a` and `b` view the same memory: the same bytes object, or two views of the
 * same range of one buffer. A reader never writes a range again once a file's bytes are
 * kept in it, so such views are the same bytes, as one object would be: what a reload
 * compares to tell an unchanged file (readers keep where a file's bytes are, not a view
 * object per file: see `KeptFiles`).
 */
export function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === b) return true;
  return (
    a !== undefined &&
    b !== undefined &&
    a.buffer === b.buffer &&
    a.byteOffset === b.byteOffset &&
    a.byteLength === b.byteLength
  );
}

/**
 * Whether two byte views hold the same bytes (compared, not by where they are): a file
 * read again whose bytes are the ones kept (touched, saved unchanged, read again to be
 * sure) is handed on as the kept range, so nothing after the read sees a change.
 */
export function sameContent(a: Uint8Array, b: Uint8Array): boolean {
  return sameBytes(a, b) || Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}
