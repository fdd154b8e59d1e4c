/**
 * Rows by id, least recently used dropped once their summed weight passes `maxWeight`. For rows
 * that never change under their id: a chunk's hit columns (content, title, headings, link, its
 * document and source ids and the source's name) are written once with the chunk, and a chunk is
 * replaced by a new one (new id), never updated in place, so a held row is the row as committed
 * for as long as the id exists.
 */
export class RowCache<T> {
  private readonly rows = new Map<number, T>();
  private weight = 0;

  constructor(
    readonly maxWeight: number,
    private readonly weigh: (row: T) => number,
  ) {}

  /** The held row of `id` (then the most recently used), or undefined. */
  get(id: number): T | undefined {
    const row = this.rows.get(id);
    if (row === undefined) return undefined;
    // Map order is insertion order: re-inserting marks it most recently used.
    this.rows.delete(id);
    this.rows.set(id, row);
    return row;
  }

  put(id: number, row: T): void {
    const old = this.rows.get(id);
    if (old !== undefined) {
      this.rows.delete(id);
      this.weight -= this.weigh(old);
    }
    const w = this.weigh(row);
    if (w > this.maxWeight) return;
    this.rows.set(id, row);
    this.weight += w;
    for (const [oldest, r] of this.rows) {
      if (this.weight <= this.maxWeight) break;
      this.rows.delete(oldest);
      this.weight -= this.weigh(r);
    }
  }

  get size(): number {
    return this.rows.size;
  }
}
