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
