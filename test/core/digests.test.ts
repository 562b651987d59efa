import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BlockHex, digestHex, keepDigest } from '../../src/core/build/digests.js';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('kept digests', () => {
  it('give each file its sha256, one by one and a block at a time, while blocks fill', () => {
    const hex = new BlockHex();
    const kept: { bytes: Uint8Array; block: Uint8Array; at: number }[] = [];
    for (let i = 0; i < 2500; i++) {
      const bytes = new TextEncoder().encode(`file ${i}`);
      kept.push({ bytes, ...keepDigest(bytes) });
      // Read through the same reader as the block fills: never a digest not yet written.
      if (i % 7 === 0)
        for (const k of [kept[i]!, kept[i >> 1]!]) expect(hex.of(k.block, k.at)).toBe(sha(k.bytes));
    }
    for (const k of kept) {
      expect(digestHex(k.block, k.at)).toBe(sha(k.bytes));
      expect(hex.of(k.block, k.at)).toBe(sha(k.bytes));
    }
  });
});
