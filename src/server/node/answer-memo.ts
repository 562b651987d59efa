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
 * metrics, the span). A request is kept only once it is asked twice (the first ask
 * leaves a marker of its key), so one-off requests (an `ambient` text of their own) do
 * not push the others out. Entries live in the engine's one byte-bounded cache, bodies
 * counted, and hold no snapshot; a request whose key is longer than
 * {@link MAX_KEY_CHARS} is never kept.
 *
 * @example
 * const memo = new AnswerMemo();
 * const key = memo.key('GET', url, req.headers, store.state);
 * const kept = key && memo.get(key, store.state);
 */
export class AnswerMemo {
  #last: PackState | undefined;
  #lastSerial = 0;

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
    const seen = cache.get(state.snapshot, key);
    if (seen === undefined) cache.set(state.snapshot, key, {}, 0);
    else if (!seen.kept) {
      const bytes = (answer.body?.byteLength ?? 0) + ANSWER_BYTES;
      cache.set(state.snapshot, key, { kept: { route, answer } }, bytes);
    }
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

/** A key's entry: a marker after the first ask, the answer after the second. */
interface Entry {
  kept?: Kept;
}

/** A generous bound of an answer's headers, its `again` and its records beside its body. */
const ANSWER_BYTES = 4096;

/** The states' numbers, one for the process (so two memos on one engine never share one). */
const serials = new WeakMap<PackState, number>();
let nextSerial = 1;

const view = (state: PackState) => engineOf(state.snapshot).cache.view<Entry>('answers');
