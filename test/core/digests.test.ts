import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BlockHex, Digests, digestHex } from '../../src/core/build/digests.js';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('kept digests', () => {
  it('give each file its sha256, one by one and a block at a time, in every pass while blocks fill', () => {
    const digests = new Digests();
    const kept: { bytes: Uint8Array; block: Uint8Array; at: number }[] = [];
    for (let i = 0; i < 2500; i++) {
      const bytes = new TextEncoder().encode(`file ${i}`);
      kept.push({ bytes, ...digests.keep(bytes) });
      // A pass (a reader made for it) between writes sees every digest written so far.
      if (i % 7 === 0) {
        const pass = new BlockHex();
        for (const k of [kept[i]!, kept[i >> 1]!]) expect(pass.of(k.block, k.at)).toBe(sha(k.bytes));
      }
    }
    const hex = new BlockHex();
    for (const k of kept) {
      expect(digestHex(k.block, k.at)).toBe(sha(k.bytes));
      expect(hex.of(k.block, k.at)).toBe(sha(k.bytes));
    }
  });
});
