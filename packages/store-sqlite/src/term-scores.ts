import { indexOfId } from '@kbqa/ranking';

/**
 * One query term's BM25 contribution to each chunk that holds it, chunk ids ascending: what
 * FTS5's bm25() returns for a MATCH of that term alone.
 *
 * FTS5's bm25() of an expression is a sum over its phrases, each phrase's term computed from that
 * phrase's own statistics (its idf over the whole index, the row's length, the index's average
 * length), added in the expression's order starting from 0. So the score of `a OR b OR c` is, to
 * the bit, ((0 + a) + b) + c of the single-term scores, a phrase absent from a row adding 0. A
 * question's words repeat across questions (and the common ones, whose posting lists FTS5 walks
 * and scores row by row, repeat most), so their lists are kept and summed instead (ScoreSum of
 * @kbqa/ranking).
 */
export interface TermScores {
  ids: Int32Array;
  scores: Float64Array;
}

/** Default bound of a cache: chunk entries over all its lists (12 bytes each, about 48 MB). */
export const DEFAULT_TERM_CACHE_ENTRIES = 4_000_000;

/** Keys of dropped lists remembered for a warm-up: a chat's words, for many recent chats. */
const REMEMBERED_KEYS = 1_000;

/**
 * Term score lists of one index, least recently used dropped past `maxEntries`, all dropped when
 * the index's change counter moves (BM25's statistics are index-wide: any write changes them).
 */
export class TermScoreCache {
  private generation: number | undefined;
  private readonly lists = new Map<string, TermScores>();

  /** Keys of the lists the last emptying dropped, most recently used first, not yet taken back. */
  private dropped: string[] = [];

  /** The next key the last emptying dropped that the cache does not hold again, if any. */
  nextDropped(): string | undefined {
    for (let key = this.dropped.shift(); key !== undefined; key = this.dropped.shift())
      if (!this.lists.has(key)) return key;
    return undefined;
  }

  /** The change counter value the kept lists belong to (undefined before the first sync). */
  get filledAt(): number | undefined {
    return this.generation;
  }
  private entries = 0;

  /**
   * @param onLoad told of each list this cache loaded, with the generation it belongs to, so that
   *   other caches of the same index (other threads) can {@link adopt} it instead of loading it.
   */
  constructor(
    readonly maxEntries = DEFAULT_TERM_CACHE_ENTRIES,
    private readonly onLoad?: (key: string, generation: number, list: TermScores) => void,
  ) {}

  /** Empties the cache when `generation` (a counter that only rises) is not the one it was filled at. */
  sync(generation: number): void {
    if (generation === this.generation) return;
    this.generation = generation;
    // Most recently used first: what a warm-up reloads (SqliteChunkIndex.warmTermLists).
    if (this.lists.size > 0) this.dropped = [...this.lists.keys()].reverse().slice(0, REMEMBERED_KEYS);
    this.lists.clear();
    this.entries = 0;
  }

  /** The list under `key`, loaded (and kept, if it fits) on a miss. */
  get(key: string, load: () => TermScores): TermScores {
    const hit = this.lists.get(key);
    if (hit) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.lists.delete(key);
      this.lists.set(key, hit);
      return hit;
    }
    const list = load();
    this.keep(key, list);
    if (this.generation !== undefined) this.onLoad?.(key, this.generation, list);
    return list;
  }

  /**
   * A list loaded elsewhere at `generation`. The counter only rises, so a newer one means this
   * cache's lists are stale (dropped, as a search would); an older one is stale itself.
   */
  adopt(key: string, generation: number, list: TermScores): void {
    if (this.generation !== undefined && generation < this.generation) return;
    this.sync(generation);
    if (!this.lists.has(key)) this.keep(key, list);
  }

  private keep(key: string, list: TermScores): void {
    if (list.ids.length > this.maxEntries) return;
    for (const [oldest, old] of this.lists) {
      if (this.entries + list.ids.length <= this.maxEntries) break;
      this.lists.delete(oldest);
      this.entries -= old.ids.length;
    }
    this.lists.set(key, list);
    this.entries += list.ids.length;
  }

  get size(): number {
    return this.entries;
  }
}

/** Term scores from rows of [id, score] in any order. */
export function termScores(rows: ReadonlyArray<readonly [id: number, score: number]>): TermScores {
  const sorted = rows.every((r, i) => i === 0 || rows[i - 1]![0] < r[0])
    ? rows
    : [...rows].sort((a, b) => a[0] - b[0]);
  // Shared memory: another thread's cache adopts the list without a copy.
  const ids = new Int32Array(new SharedArrayBuffer(4 * sorted.length));
  const scores = new Float64Array(new SharedArrayBuffer(8 * sorted.length));
  sorted.forEach(([id, score], i) => {
    ids[i] = id;
    scores[i] = score;
  });
  return { ids, scores };
}

/** Largest id over the lists (-1 when all are empty). */
export function maxId(lists: readonly TermScores[]): number {
  let max = -1;
  for (const l of lists) if (l.ids.length > 0) max = Math.max(max, l.ids[l.ids.length - 1]!);
  return max;
}

/** The summed score of one chunk over the lists (binary search in each), undefined if in none. */
export function scoreOf(lists: readonly TermScores[], id: number): number | undefined {
  let sum = 0;
  let found = false;
  for (const { ids, scores } of lists) {
    const at = indexOfId(ids, id);
    if (at < 0) continue;
    sum += scores[at]!;
    found = true;
  }
  return found ? sum : undefined;
}
