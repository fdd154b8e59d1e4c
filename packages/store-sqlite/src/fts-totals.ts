import type BetterSqlite3 from 'better-sqlite3';

/**
 * BM25's index-wide statistics in `chunks_fts`: the row count and each column's token total, which
 * FTS5 keeps in its averages record (row 1 of `chunks_fts_data`: SQLite varints, the row count then
 * one total per column) and reads for every bm25() call.
 *
 * `chunks_fts` is contentless with `contentless_delete=1`, and on such a table (SQLite 3.53) a
 * DELETE removes the row's tokens and its `%_docsize` entry but leaves the averages record as it
 * was: every chunk ever written stays counted. A source re-synced ten times counted eleven times
 * over, so idfs and the average length drifted with every re-sync, deletion or re-ingestion, and
 * the same question on the same content scored differently (0.5828 → 0.6014 after one delete and
 * rewrite of ten chunks). The `'delete'` command, which would keep the record, is refused on
 * these tables. So a delete goes through {@link FtsTotals.deleteRows}: the deleted rows' sizes
 * are read from `%_docsize` first and taken off the record after.
 */
export class FtsTotals {
  private readonly readRecord: BetterSqlite3.Statement<[], { block: Buffer }>;

  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly table = 'chunks_fts',
  ) {
    this.readRecord = db.prepare(`SELECT block FROM ${table}_data WHERE id = 1`);
  }

  /**
   * Runs `remove` (statements that delete rows of the table, and nothing else) and takes the
   * rows it deleted off the averages record. `sizes` selects the `sz` of those rows from
   * `%_docsize` (read before they go). Call it inside a write transaction: the delete runs in a
   * savepoint of its own because FTS5 writes the record it holds in memory when a savepoint is
   * released or the transaction commits, which would undo a correction made before that.
   */
  deleteRows(sizes: () => Array<{ sz: Buffer }>, remove: () => void): void {
    const removed = sizes().map((r) => readVarints(r.sz));
    this.db.transaction(remove)();
    if (removed.length === 0) return;
    const totals = this.totals();
    if (!totals) return;
    const next = totals.map((v, i) =>
      Math.max(0, v - (i === 0 ? removed.length : removed.reduce((n, sz) => n + (sz[i - 1] ?? 0), 0))),
    );
    this.write(next);
  }

  /**
   * Sets the record to what the rows in `%_docsize` add up to: repairs a record that counted
   * deleted rows (databases written before {@link deleteRows}). Returns the record before and after.
   */
  recount(): { before: number[]; after: number[] } | undefined {
    // A savepoint released makes FTS5 write out (and forget) a record it holds from earlier
    // writes of this transaction, which would otherwise overwrite this one at commit.
    this.db.transaction(() => undefined)();
    const before = this.totals();
    if (!before) return undefined;
    const after = new Array<number>(before.length).fill(0);
    for (const { sz } of this.db.prepare<[], { sz: Buffer }>(`SELECT sz FROM ${this.table}_docsize`).all()) {
      after[0]!++;
      readVarints(sz).forEach((v, c) => {
        if (c + 1 < after.length) after[c + 1]! += v;
      });
    }
    this.write(after);
    return { before, after };
  }

  /** The record: the row count then one token total per column (undefined before any row). */
  totals(): number[] | undefined {
    const row = this.readRecord.get();
    return row ? readVarints(row.block) : undefined;
  }

  private write(values: number[]): void {
    // Shadow tables are read-only in SQLite's defensive mode, which better-sqlite3 turns on;
    // unsafe mode lifts it for this one statement, prepared here because SQLite checks at prepare.
    this.db.unsafeMode(true);
    try {
      this.db.prepare(`UPDATE ${this.table}_data SET block = ? WHERE id = 1`).run(writeVarints(values));
    } finally {
      this.db.unsafeMode(false);
    }
  }
}

/**
 * SQLite's variable-length integers (the record format's, which FTS5 uses): big-endian groups
 * of 7 bits, the high bit set on every byte but the last, and a ninth byte, if reached, whole.
 */
export function readVarints(buf: Uint8Array): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < buf.length) {
    let v = 0;
    for (let n = 1; ; n++) {
      const b = buf[i++]!;
      if (n === 9) {
        v = v * 256 + b;
        break;
      }
      v = v * 128 + (b & 0x7f);
      if (!(b & 0x80) || i >= buf.length) break;
    }
    out.push(v);
  }
  return out;
}

/** The inverse of {@link readVarints} for integers below 2^56 (token totals never reach it). */
export function writeVarints(values: readonly number[]): Buffer {
  const bytes: number[] = [];
  for (const value of values) {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a varint: ${value}`);
    const groups: number[] = [];
    let v = value;
    do {
      groups.unshift(v % 128);
      v = Math.floor(v / 128);
    } while (v > 0);
    for (let k = 0; k < groups.length - 1; k++) groups[k]! |= 0x80;
    bytes.push(...groups);
  }
  return Buffer.from(bytes);
}
