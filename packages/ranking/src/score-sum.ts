import { TopK } from './top-k';

/**
 * Per-chunk sums over term score lists in a dense array indexed by chunk id, reused between
 * questions: one pass per list and no per-chunk allocation. Replaces a merge of the lists into a
 * chunks × lists table, whose cost grew with the index (a common word's list holds most of
 * the chunks). Each chunk's sum is built in the order its terms are added, starting
 * from its first term's value, so it is to the bit the sum `0 + a + b + …` of that order (the
 * SQLite store's sums are FTS5's bm25() of the OR of the terms, see its term-scores.ts).
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

  /** {@link add} for each entry of a list of ids and their scores (a term's score list). */
  addList(ids: Int32Array, scores: Float64Array): void {
    const { mark, score, seen, epoch } = this;
    let count = this.count;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (mark[id] !== epoch) {
        mark[id] = epoch;
        score[id] = scores[i]!;
        seen[count++] = id;
      } else {
        score[id] = score[id]! + scores[i]!;
      }
    }
    this.count = count;
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

  /** The chunks added to since {@link begin}, in first-seen order. */
  get touched(): Int32Array {
    return this.seen.subarray(0, this.count);
  }

  has(id: number): boolean {
    return id < this.mark.length && this.mark[id] === this.epoch;
  }

  get(id: number): number {
    return this.has(id) ? this.score[id]! : 0;
  }

  /** The `limit` touched chunks of highest sum, best first, ties by smaller id. */
  top(limit: number): number[] {
    if (limit <= 0) return [];
    const { score, seen, count } = this;
    const top = new TopK(limit);
    for (let k = 0; k < count; k++) {
      const id = seen[k]!;
      top.offer(id, score[id]!);
    }
    return top.ids();
  }
}
