import { describe, expect, it } from 'vitest';
import { sameBytes } from '../../src/engine/incremental/same-bytes.js';
import { BytesMemo } from '../../src/engine/memo/parse-memo.js';

describe('the same bytes', () => {
  const buffer = new ArrayBuffer(16);
  const view = (offset: number, length: number) => new Uint8Array(buffer, offset, length);

  it('are one range of one buffer, whichever view shows it', () => {
    expect(sameBytes(view(4, 8), view(4, 8))).toBe(true);
    const one = view(0, 4);
    expect(sameBytes(one, one)).toBe(true);
    expect(sameBytes(undefined, undefined)).toBe(true);
  });

  it('are not another range, another buffer with the same content, or no bytes', () => {
    expect(sameBytes(view(4, 8), view(4, 7))).toBe(false);
    expect(sameBytes(view(4, 8), view(5, 8))).toBe(false);
    expect(sameBytes(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(false);
    expect(sameBytes(view(0, 4), undefined)).toBe(false);
    expect(sameBytes(undefined, view(0, 4))).toBe(false);
  });

  it('share a parse memo: a step runs once per range, for any view of it', () => {
    const memoBuffer = new ArrayBuffer(32);
    let runs = 0;
    const memo = new BytesMemo();
    const parse = (offset: number, length: number, path = 'a.yaml') =>
      memo.get(new Uint8Array(memoBuffer, offset, length), 'test-step', () => ++runs, path);
    expect(parse(0, 8)).toBe(1);
    expect(parse(0, 8)).toBe(1);
    // Another length at the same offset (an empty file beside a full one), another path,
    // another offset: each its own result.
    expect(parse(0, 0)).toBe(2);
    expect(parse(0, 8, 'b.yaml')).toBe(3);
    expect(parse(8, 8)).toBe(4);
    expect([parse(0, 8), parse(0, 0), parse(0, 8, 'b.yaml'), parse(8, 8)]).toEqual([1, 2, 3, 4]);
  });
});
