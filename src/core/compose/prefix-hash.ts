import { createHash, type Hash } from 'node:crypto';
import { derived } from '../build/derived.js';
import type { Snapshot } from '../build/snapshot-types.js';
import { sha256 } from '../text/text.js';
import type { LayerResult } from './types.js';

// A one-off prompt (a request's own `ambient` text) that begins with files' prompts as they
// stand is hashed from the hash state of that beginning, kept for the snapshot: the
// beginning is the same for every such request of the same role, team and settings, and
// hashing it again each time (an 8 KB prompt: about 20 µs) was most of the cost of a
// one-off prompt's ETag. Other prompts are hashed once and kept whole (the memo).

/** A beginning shorter than this (characters) is hashed again each time: cheaper than keeping it. */
export const PREFIX_MIN_CHARS = 1024;

/**
 * The hash of a composed text whose first `end` characters are the prompts of its first
 * `count` included layers, each a file's prompt as it stands, joined by the separators
 * before them and the one before layer `next` (the first included layer that is not such
 * a file).
 */
export class PrefixedTextHash {
  #hash: string | undefined;
  constructor(
    private readonly snapshot: Snapshot,
    private readonly joined: { text: string },
    private readonly layers: readonly LayerResult[],
    private readonly count: number,
    private readonly end: number,
    private readonly next: string,
  ) {}

  hash(): string {
    this.#hash ??= this.#compute();
    return this.#hash;
  }

  #compute(): string {
    const { text } = this.joined;
    const end = this.end;
    // A beginning that ends inside a surrogate pair would hash other bytes than the text.
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) return sha256(text);
    return derived(this.snapshot, PREFIX_HASHES, () => new PrefixHashes()).hash(this.#key(), text, end);
  }

  /**
   * What the beginning is made of, within the snapshot: each layer's id (which fixes the
   * separator before it) and file path (which fixes its prompt), and the next layer's id.
   */
  #key(): string {
    let key = '';
    let left = this.count;
    for (const layer of this.layers) {
      if (left === 0) break;
      if (!layer.included) continue;
      key += `${layer.id}\u0000${layer.source}\u0000`;
      left--;
    }
    return `${key}${this.next}`;
  }
}

/** The bytes a snapshot's kept beginnings may hold, keys and hash states counted. */
export const PREFIX_HASHES_MAX_BYTES = 256 * 1024;

// --- internal ---

const PREFIX_HASHES = 'prompt-prefix-hashes';
/** What one kept hash state costs beside its key: the native state and its object. */
const STATE_BYTES = 1024;

/** A snapshot's kept beginnings: hash states by key, the least recently used let go first. */
class PrefixHashes {
  #entries = new Map<string, { state: Hash; length: number; bytes: number }>();
  #bytes = 0;

  /** The sha256 of `text`, from the kept state of its first `end` characters (kept now if need be). */
  hash(key: string, text: string, end: number): string {
    let entry = this.#entries.get(key);
    if (entry !== undefined) this.#entries.delete(key);
    if (entry === undefined || entry.length !== end) {
      if (entry !== undefined) this.#bytes -= entry.bytes;
      entry = {
        state: createHash('sha256').update(text.slice(0, end)),
        length: end,
        bytes: key.length * 2 + STATE_BYTES,
      };
      this.#bytes += entry.bytes;
      for (const [old, kept] of this.#entries) {
        if (this.#bytes <= PREFIX_HASHES_MAX_BYTES) break;
        this.#entries.delete(old);
        this.#bytes -= kept.bytes;
      }
    }
    this.#entries.set(key, entry);
    return entry.state.copy().update(text.slice(end)).digest('hex');
  }
}
