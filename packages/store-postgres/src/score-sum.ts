/**
 * Per-chunk sums over posting lists in a dense array indexed by chunk id, reused between
 * questions: one pass per list and no per-chunk allocation. Replaces a merge of the lists into a
 * chunks × lists table, which cost some 8 ms a question at 100k chunks (a common word's list
 * holds most of them). Each chunk's sum is built in the order its terms are added, starting
 * from its first term's value, so it is to the bit the sum `0 + a + b + …` of that order.
 */
export class ScoreSum {
  private score = new Float64Array(0);
  private mark = new Int32Array(0);
  private epoch = 0;
  private seen = new Int32Array(0);
  private count = 0;

  /** Starts a sum over chunk ids up to `maxId`. */
  begin(maxId: number): void {
    if (maxId >= this.score.length) {
      const size = Math.max(maxId + 1, this.score.length * 2);
      this.score = new Float64Array(size);
      this.mark = new Int32Array(size);
      // Each chunk is seen once a sum: room for all, so adding never checks for it.
      this.seen = new Int32Array(size);
      this.epoch = 0;
    }
    this.epoch += 1;
    this.count = 0;
  }

  /** Adds `value` to chunk `id`'s sum (a first value starts it). */
  add(id: number, value: number): void {
    if (this.mark[id] !== this.epoch) {
      this.mark[id] = this.epoch;
      this.score[id] = value;
      this.seen[this.count++] = id;
    } else {
      this.score[id] = this.score[id]! + value;
    }
  }

  /**
   * {@link add} for each posting of a term's list: `weight` × the term's BM25 saturation,
   * `weight · tf · (k1 + 1) / (tf + k1 · (1 − b + b · length / avgLength))`, 0 where tf or
   * weight is not positive (the chunk is still a candidate). One loop over typed arrays: the
   * common words' lists hold most chunks of a large project.
   */
  addBm25(
    chunkIds: Int32Array,
    tfs: Float32Array,
    docLens: Int32Array,
    weight: number,
    k1: number,
    b: number,
    avgLength: number,
  ): void {
    const { mark, score, seen, epoch } = this;
    let count = this.count;
    const positive = weight > 0;
    for (let j = 0; j < chunkIds.length; j++) {
      const id = chunkIds[j]!;
      const tf = tfs[j]!;
      const value =
        positive && tf > 0
          ? (weight * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * docLens[j]!) / avgLength))
          : 0;
      if (mark[id] !== epoch) {
        mark[id] = epoch;
        score[id] = value;
        seen[count++] = id;
      } else {
        score[id] = score[id]! + value;
      }
    }
    this.count = count;
  }

  /** The chunks added to since {@link begin}. */
  get touched(): Int32Array {
    return this.seen.subarray(0, this.count);
  }

  get(id: number): number {
    return id < this.mark.length && this.mark[id] === this.epoch ? this.score[id]! : 0;
  }

  /** The `limit` touched chunks of highest sum, best first, ties by smaller id. */
  top(limit: number): number[] {
    return topIds(this.touched, this.score, limit);
  }
}

/**
 * The `limit` of `ids` with the highest `score[id]`, best first, ties by smaller id. The SQLite
 * store's `topIds` does the same through a score function; calling it here (a closure per id, its
 * call site shared with SQLite's callers) made PostgreSQL's lexical p50 at 100k chunks 0.3 ms
 * slower (bench/retrieval/store-scale.js, 1.62-1.80x SQLite's against 1.97-2.06x), so this
 * question's hot path keeps its own heap over the dense array.
 */
export function topIds(ids: Int32Array, score: Float64Array, limit: number): number[] {
  if (limit <= 0) return [];
  // A min-heap of the best so far in two typed arrays; the root is the weakest kept.
  const heapIds = new Int32Array(limit);
  const heapScores = new Float64Array(limit);
  let n = 0;
  const worse = (i: number, j: number): boolean =>
    heapScores[i]! < heapScores[j]! || (heapScores[i] === heapScores[j] && heapIds[i]! > heapIds[j]!);
  const swap = (i: number, j: number): void => {
    const id = heapIds[i]!;
    const s = heapScores[i]!;
    heapIds[i] = heapIds[j]!;
    heapScores[i] = heapScores[j]!;
    heapIds[j] = id;
    heapScores[j] = s;
  };
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    const s = score[id]!;
    if (n < limit) {
      heapIds[n] = id;
      heapScores[n] = s;
      for (let i = n++; i > 0;) {
        const p = (i - 1) >> 1;
        if (!worse(i, p)) break;
        swap(i, p);
        i = p;
      }
    } else if (s > heapScores[0]! || (s === heapScores[0] && id < heapIds[0]!)) {
      heapIds[0] = id;
      heapScores[0] = s;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < n && worse(l, m)) m = l;
        if (r < n && worse(r, m)) m = r;
        if (m === i) break;
        swap(i, m);
        i = m;
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => heapScores[b]! - heapScores[a]! || heapIds[a]! - heapIds[b]!);
  return order.map((i) => heapIds[i]!);
}
