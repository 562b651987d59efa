import { Buffer } from 'node:buffer';
import { hash } from 'node:crypto';

// Files' sha256 digests kept as raw bytes in shared blocks, their hex made when asked for.

/**
 * Where one file's digest is kept: 32 bytes at `at` in `block`. A loaded pack keeps a
 * digest per file (tens of thousands in a large pack): 32 bytes in a shared block and a
 * reference cost half of a 64-character hex string, which V8 holds in 80 bytes.
 */
export interface DigestSpot {
  block: Uint8Array;
  at: number;
}

/**
 * Where a build keeps its files' digests: blocks of 1,024, filled in turn. A block lives
 * while any file whose digest it holds does.
 */
export class Digests {
  #current = Buffer.alloc(0);
  #used = 0;

  /**
   * The sha256 of `bytes`, written into the current block (a new one when it is full).
   * The digest comes as hex and is written as bytes: a digest as a buffer would be a
   * small native allocation per file, whose freed holes the process keeps.
   */
  keep(bytes: Uint8Array): DigestSpot {
    if (this.#used === this.#current.length) {
      this.#current = Buffer.alloc(BLOCK_BYTES);
      this.#used = 0;
    }
    const at = this.#used;
    this.#current.write(hash('sha256', bytes, 'hex'), at, DIGEST_BYTES, 'hex');
    this.#used += DIGEST_BYTES;
    return { block: this.#current, at };
  }
}

/** A kept digest as 64 hex digits (the form versions and provenance carry). */
export function digestHex(block: Uint8Array, at: number): string {
  return Buffer.from(block.buffer, block.byteOffset + at, DIGEST_BYTES).toString('hex');
}

/**
 * Digests as hex for a pass over many files (a pack's version reads every file's): a
 * block's digests made hex in one call, and each file's hex a slice of that. The slices
 * keep the block's hex alive: use them at once, never keep them.
 */
export class BlockHex {
  #block: Uint8Array | undefined;
  #hex = '';

  of(block: Uint8Array, at: number): string {
    if (block !== this.#block) {
      // No digest is written while a pass reads them: a block's hex holds all it has.
      this.#hex = Buffer.from(block.buffer, block.byteOffset, block.length).toString('hex');
      this.#block = block;
    }
    return this.#hex.slice(2 * at, 2 * (at + DIGEST_BYTES));
  }
}

// --- internal ---

const DIGEST_BYTES = 32;
/** 1,024 digests a block. */
const BLOCK_BYTES = 1024 * DIGEST_BYTES;
