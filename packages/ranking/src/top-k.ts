/**
 * The best `limit` of a stream of (id, score) pairs: a min-heap in two typed arrays (no object
 * per candidate: tens of thousands of chunks hold a common word), the root the weakest kept.
 * Higher score is better, ties go to the smaller id. Both stores' hot paths feed it in their own
 * loop ({@link topIds} with a score function, {@link ScoreSum.top} from its dense array), so the
 * call to {@link offer} stays monomorphic: a shared loop calling a score closure made
 * PostgreSQL's lexical search measurably slower (bench/retrieval/store-scale.js).
 */
export class TopK {
  private readonly heapIds: Int32Array;
  private readonly heapScores: Float64Array;
  private n = 0;

  constructor(private readonly limit: number) {
    this.heapIds = new Int32Array(Math.max(0, limit));
    this.heapScores = new Float64Array(Math.max(0, limit));
  }

  /** Keeps `id` if it is among the best `limit` offered so far. */
  offer(id: number, s: number): void {
    const { heapIds, heapScores, limit } = this;
    if (this.n < limit) {
      heapIds[this.n] = id;
      heapScores[this.n] = s;
      for (let i = this.n++; i > 0;) {
        const p = (i - 1) >> 1;
        if (!this.worse(i, p)) break;
        this.swap(i, p);
        i = p;
      }
    } else if (limit > 0 && (s > heapScores[0]! || (s === heapScores[0] && id < heapIds[0]!))) {
      heapIds[0] = id;
      heapScores[0] = s;
      const n = this.n;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < n && this.worse(l, m)) m = l;
        if (r < n && this.worse(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
  }

  /** The kept ids, best first, ties by smaller id. */
  ids(): number[] {
    const { heapIds, heapScores } = this;
    const order = Array.from({ length: this.n }, (_, i) => i);
    order.sort((a, b) => heapScores[b]! - heapScores[a]! || heapIds[a]! - heapIds[b]!);
    return order.map((i) => heapIds[i]!);
  }

  private worse(i: number, j: number): boolean {
    const { heapIds, heapScores } = this;
    return heapScores[i]! < heapScores[j]! || (heapScores[i] === heapScores[j] && heapIds[i]! > heapIds[j]!);
  }

  private swap(i: number, j: number): void {
    const { heapIds, heapScores } = this;
    const id = heapIds[i]!;
    const s = heapScores[i]!;
    heapIds[i] = heapIds[j]!;
    heapScores[i] = heapScores[j]!;
    heapIds[j] = id;
    heapScores[j] = s;
  }
}

/** The `limit` ids of highest score, best first, ties by smaller id. */
export function topIds(
  ids: ArrayLike<number> & Iterable<number>,
  score: (id: number) => number,
  limit: number,
): number[] {
  if (limit <= 0) return [];
  const top = new TopK(limit);
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    top.offer(id, score(id));
  }
  return top.ids();
}

/** Where `id` is in ascending `ids` (binary search), or -1. */
export function indexOfId(ids: Int32Array, id: number): number {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = ids[mid]!;
    if (at < id) lo = mid + 1;
    else if (at > id) hi = mid - 1;
    else return mid;
  }
  return -1;
}
