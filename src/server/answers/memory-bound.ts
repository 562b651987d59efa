/**
 * The service's peak memory bound: what its resident memory stays under, whatever
 * clients ask, given the limits it runs with. Every term is a limit the service enforces
 * or a figure measured once at start-up:
 *
 * - `startupBytes`: resident memory once the service is ready (code, the pack's
 *   snapshot, the tokenizer's tables in both threads), measured;
 * - the cache: every cache derived from a snapshot lives in one LRU bounded by
 *   `cacheBytes`, its entries sized at an upper bound of what they hold;
 * - requests in flight: at most `maxRenders` requests compose, count and serialise an
 *   uncached answer at once, each holding at most {@link COPIES_IN_FLIGHT} copies of its
 *   prompt (the text, the JSON string, both UTF-8 bodies, the texts sent to the counting
 *   worker; two bytes per unit for text that is not ASCII); a waiting request holds its
 *   body (64 KiB at most) and nothing else;
 * - the garbage collector's headroom: V8 collects the old generation once it has grown
 *   past a limit set from the live size after the previous collection, so dead entries
 *   and finished requests may stay resident up to about as much again as what is live
 *   (cache and requests in flight), and byte arrays outside the heap trigger a collection
 *   after {@link EXTERNAL_GC_STEP} of new allocations.
 *
 * @example
 * memoryBound({ startupBytes: 204 * MiB, cacheBytes: 64 * MiB, maxRenders: 4, promptBytes: 2 * MiB });
 * // 204 + 2 × (64 + 4 × 8 × 2) + 64 = 524 MiB
 */
export function memoryBound(limits: {
  startupBytes: number;
  cacheBytes: number;
  maxRenders: number;
  /** The largest prompt the pack composes (plus the largest ambient text a request may add). */
  promptBytes: number;
}): number {
  const inFlight = limits.maxRenders * COPIES_IN_FLIGHT * limits.promptBytes;
  const live = limits.cacheBytes + inFlight;
  return limits.startupBytes + 2 * live + EXTERNAL_GC_STEP;
}

/** Copies of its prompt a request holds at most while its answer is made, in bytes per prompt byte. */
export const COPIES_IN_FLIGHT = 8;

/** New memory outside V8's heap (byte arrays) after which V8 collects: 64 MiB. */
export const EXTERNAL_GC_STEP = 64 * 1024 * 1024;
