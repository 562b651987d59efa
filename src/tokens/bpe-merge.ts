// Byte-pair merging in O(n log n): the same merges, in the same order, as the reference
// quadratic loop (lowest rank first, leftmost on ties), kept in a heap over a linked list
// of parts. It keeps the cost of a long run without pre-token breaks (`xxxx…`, `中中中…`,
// a line of `=`) proportional to its length instead of its square.

/** Rank of a byte sequence in the encoding, or undefined when it is not a token. */
export type RankOf = (bytes: Uint8Array) => number | undefined;

/**
 * How many tokens byte-pair encoding makes of `piece` (one pre-token), given the ranks.
 *
 * @example
 * mergedTokenCount(new TextEncoder().encode('x'.repeat(65536)), rankOf); // exact, fast
 */
export function mergedTokenCount(piece: Uint8Array, rankOf: RankOf): number {
  const n = piece.length;
  if (n <= 1) return n;
  // Part i starts at byte i; next/prev link live parts; rank[i] ranks part i + its next.
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  const rank = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    next[i] = i + 1 < n ? i + 1 : -1;
    prev[i] = i - 1;
  }
  const heap = new MinHeap();
  // Runs repeat the same pairs: remember each distinct byte sequence's rank (for this piece).
  const seen = new Map<string, number>();
  const pairRank = (i: number): number => {
    const j = next[i]!;
    if (j === -1) return Number.POSITIVE_INFINITY;
    const end = next[j] === -1 ? n : next[j]!;
    const bytes = piece.subarray(i, end);
    const key = String.fromCharCode.apply(null, bytes as unknown as number[]);
    let r = seen.get(key);
    if (r === undefined) {
      r = rankOf(bytes) ?? Number.POSITIVE_INFINITY;
      seen.set(key, r);
    }
    return r;
  };
  for (let i = 0; i < n; i++) {
    rank[i] = pairRank(i);
    if (rank[i] !== Number.POSITIVE_INFINITY) heap.push(rank[i]!, i);
  }
  let parts = n;
  const alive = new Uint8Array(n).fill(1);
  while (heap.size > 0) {
    heap.pop();
    const r = heap.topRank;
    const i = heap.topStart;
    if (!alive[i] || rank[i] !== r) continue; // stale entry
    const j = next[i]!;
    // Merge part i with its next part j.
    alive[j] = 0;
    next[i] = next[j]!;
    if (next[j] !== -1) prev[next[j]!] = i;
    parts--;
    rank[i] = pairRank(i);
    if (rank[i] !== Number.POSITIVE_INFINITY) heap.push(rank[i]!, i);
    const p = prev[i]!;
    if (p !== -1) {
      rank[p] = pairRank(p);
      if (rank[p] !== Number.POSITIVE_INFINITY) heap.push(rank[p]!, p);
    }
  }
  return parts;
}

// --- internal ---

/** A binary min-heap of (rank, start) pairs, ordered by rank then start (leftmost first). */
class MinHeap {
  private ranks = new Float64Array(64);
  private starts = new Int32Array(64);
  size = 0;
  /** The pair the last {@link pop} removed. */
  topRank = 0;
  topStart = 0;

  push(rank: number, start: number): void {
    if (this.size === this.ranks.length) {
      const ranks = new Float64Array(this.size * 2);
      ranks.set(this.ranks);
      this.ranks = ranks;
      const starts = new Int32Array(this.size * 2);
      starts.set(this.starts);
      this.starts = starts;
    }
    const { ranks, starts } = this;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pr = ranks[parent]!;
      if (pr < rank || (pr === rank && starts[parent]! < start)) break;
      ranks[i] = pr;
      starts[i] = starts[parent]!;
      i = parent;
    }
    ranks[i] = rank;
    starts[i] = start;
  }

  pop(): void {
    const { ranks, starts } = this;
    this.topRank = ranks[0]!;
    this.topStart = starts[0]!;
    const size = --this.size;
    if (size === 0) return;
    const rank = ranks[size]!;
    const start = starts[size]!;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= size) break;
      const r = l + 1;
      let m = l;
      if (r < size && (ranks[r]! < ranks[l]! || (ranks[r] === ranks[l] && starts[r]! < starts[l]!))) m = r;
      if (rank < ranks[m]! || (rank === ranks[m] && start < starts[m]!)) break;
      ranks[i] = ranks[m]!;
      starts[i] = starts[m]!;
      i = m;
    }
    ranks[i] = rank;
    starts[i] = start;
  }
}
