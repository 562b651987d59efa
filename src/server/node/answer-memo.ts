import type { IncomingHttpHeaders } from 'node:http';
import { engineOf } from '../../engine/default-engine.js';
import type { PackState } from '../../reload/store.js';
import type { Answer } from '../service/answer.js';
import type { TableRoute } from '../service/route-table.js';

/**
 * Answers the direct path gives again. A prompt route's answer depends only on the
 * request (its method, URL, `Accept`, `If-None-Match`, `If-Match` and body) and on the pack versions
 * the service holds, so the same request gets the same answer for as long as the
 * service holds the same versions (the same `store.state`). An answer its handler marks
 * as such (`Answer.again`) is kept under those parts of the request and that state: the
 * next equal request is answered from it with one look-up, before its query is parsed
 * or its body validated, and `again()` records what the handler records (the compose
 * metrics, the span). A request is kept only once it is asked twice: the first ask
 * leaves its key's hash among the last {@link SEEN_KEYS} first asks (a few pages of
 * numbers, apart from the cache), so one-off requests (an `ambient` text of their own)
 * neither push the kept answers out nor fill the cache with their keys, whose look-ups
 * every other request would then pay for. Kept answers live in the engine's one
 * byte-bounded cache, bodies counted, and hold no snapshot; a request whose key is longer
 * than {@link MAX_KEY_CHARS} is never kept.
 *
 * @example
 * const memo = new AnswerMemo();
 * const key = memo.key('GET', url, req.headers, store.state);
 * const kept = key && memo.get(key, store.state);
 */
export class AnswerMemo {
  #last: PackState | undefined;
  #lastSerial = 0;
  #seen = new SeenOnce(SEEN_KEYS);

  /**
   * The key of a request read in `state`: undefined when there is no state yet, or the
   * key would be too long to keep.
   */
  key(
    method: string,
    url: string,
    headers: IncomingHttpHeaders,
    state: PackState | undefined,
    body?: string,
  ): string | undefined {
    if (state === undefined) return undefined;
    // The parts are joined by a character no URL and no header value holds; the body,
    // which may hold it, comes last.
    const key = `${this.#serial(state)}\n${method}\n${url}\n${headers.accept ?? ''}\n${
      headers['if-none-match'] ?? ''
    }\n${headers['if-match'] ?? ''}${body === undefined ? '' : `\n${body}`}`;
    return key.length <= MAX_KEY_CHARS ? key : undefined;
  }

  /** The answer kept for a request's key, with its route. */
  get(key: string, state: PackState): Kept | undefined {
    return view(state).get(state.snapshot, key)?.kept;
  }

  /**
   * Offers the answer a handler gave to the request of `key` (read in `state`): kept
   * when the answer may be given again and the request was asked before.
   */
  offer(key: string, state: PackState, route: TableRoute, answer: Answer): void {
    if (answer.again === undefined) return;
    const cache = view(state);
    if (cache.get(state.snapshot, key) !== undefined || !this.#seen.again(keyHash(key))) return;
    const bytes = (answer.body?.byteLength ?? 0) + ANSWER_BYTES;
    cache.set(state.snapshot, key, { kept: { route, answer } }, bytes);
  }

  /** A number of its own for each state (entries name it instead of holding the state). */
  #serial(state: PackState): number {
    if (state !== this.#last) {
      let serial = serials.get(state);
      if (serial === undefined) {
        serial = nextSerial++;
        serials.set(state, serial);
      }
      this.#last = state;
      this.#lastSerial = serial;
    }
    return this.#lastSerial;
  }
}

/** A kept answer, and the route that gave it (for the metrics and the access log). */
export interface Kept {
  route: TableRoute;
  answer: Answer;
}

/** Requests with longer keys (URL, the three headers and the body, in characters) are never kept. */
export const MAX_KEY_CHARS = 16 * 1024;

// --- internal ---

/** A key's entry: the answer, kept at the second ask. */
interface Entry {
  kept: Kept;
}

/**
 * How many first asks are remembered: a request asked again after this many other new
 * requests is kept at its next ask.
 */
export const SEEN_KEYS = 4096;

/**
 * The hashes of the last `capacity` first asks, in a ring: a hash seen again is taken out
 * and said to be. (Two keys with one hash make the second kept at its first ask: harmless,
 * the answer is kept under its own key.)
 */
class SeenOnce {
  #ring: Float64Array;
  #set = new Set<number>();
  #next = 0;

  constructor(private readonly capacity: number) {
    this.#ring = new Float64Array(capacity).fill(Number.NaN);
  }

  /** True when `hash` was among the last first asks (then forgotten); else remembered. */
  again(hash: number): boolean {
    if (this.#set.delete(hash)) return true;
    const old = this.#ring[this.#next]!;
    if (!Number.isNaN(old)) this.#set.delete(old);
    this.#ring[this.#next] = hash;
    this.#next = (this.#next + 1) % this.capacity;
    this.#set.add(hash);
    return false;
  }
}

/** A key's 52-bit hash: two 32-bit FNV-1a hashes of its UTF-16 units, one of them cut to 20 bits. */
function keyHash(key: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0) * 2 ** 20 + ((b >>> 0) & 0xfffff);
}

/** A generous bound of an answer's headers, its `again` and its records beside its body. */
const ANSWER_BYTES = 4096;

/** The states' numbers, one for the process (so two memos on one engine never share one). */
const serials = new WeakMap<PackState, number>();
let nextSerial = 1;

const view = (state: PackState) => engineOf(state.snapshot).cache.view<Entry>('answers');
