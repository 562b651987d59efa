import { createGunzip } from 'node:zlib';

/**
 * Inflates a gzip stream of at most `maxOutput` bytes, off the event loop: zlib works on
 * the thread pool, and each piece it gives is copied at once into one buffer sized from
 * the stream's own length field (grown when that field lies), so no step copies the whole
 * output at the end. Past `maxOutput` it stops with an error coded ERR_BUFFER_TOO_LARGE;
 * a damaged or cut stream fails with zlib's error.
 */
export function inflateBounded(gz: Uint8Array, maxOutput: number): Promise<Uint8Array> {
  // ISIZE, the last member's length mod 2^32: a hint, never trusted past the limit.
  const hint =
    gz.length >= 18 ? new DataView(gz.buffer, gz.byteOffset + gz.length - 4).getUint32(0, true) : 0;
  let out = new Uint8Array(Math.min(Math.max(hint, MIN_BUFFER), maxOutput));
  let filled = 0;
  return new Promise((resolve, reject) => {
    const zlib = createGunzip();
    zlib.on('data', (piece: Buffer) => {
      const need = filled + piece.length;
      if (need > maxOutput) {
        zlib.destroy();
        reject(
          Object.assign(new RangeError(`more than ${maxOutput} bytes inflated`), {
            code: 'ERR_BUFFER_TOO_LARGE',
          }),
        );
        return;
      }
      if (need > out.length) {
        const grown = new Uint8Array(Math.min(Math.max(out.length * 2, need), maxOutput));
        grown.set(out.subarray(0, filled));
        out = grown;
      }
      out.set(piece, filled);
      filled = need;
    });
    zlib.on('end', () => resolve(out.subarray(0, filled)));
    zlib.on('error', reject);
    zlib.end(gz);
  });
}

// --- internal ---

const MIN_BUFFER = 64 * 1024;
