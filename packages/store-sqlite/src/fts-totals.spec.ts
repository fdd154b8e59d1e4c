import Database from 'better-sqlite3';
import { FtsTotals, readVarints, writeVarints } from './fts-totals';

describe(FtsTotals.name, () => {
  let db: Database.Database;
  beforeEach(() => {
    db = new Database(':memory:');
    // The shape of chunks_fts: contentless, rows deleted with DELETE.
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(a, b, content='', contentless_delete=1)`);
  });
  afterEach(() => db.close());

  const insert = (id: number, a: string, b: string) =>
    db.prepare('INSERT INTO t (rowid, a, b) VALUES (?, ?, ?)').run(id, a, b);
  const bm25 = (match: string) =>
    (
      db.prepare('SELECT bm25(t) AS s FROM t WHERE t MATCH ? ORDER BY rowid').all(match) as Array<{
        s: number;
      }>
    ).map((r) => r.s);
  const fill = () => {
    insert(1, 'pino logger', 'pino is the logger fastify uses');
    insert(2, 'hooks', 'other words about hooks and plugins');
    for (let i = 0; i < 10; i++) insert(10 + i, 'sparrow', `sparrow notes page ${i}`);
  };
  const sizes = (from: number) => () =>
    db.prepare<[number], { sz: Buffer }>('SELECT sz FROM t_docsize WHERE id >= ?').all(from);
  const remove = (from: number) => () => db.prepare('DELETE FROM t WHERE rowid >= ?').run(from);

  it('reads and writes SQLite varints of one to eight bytes', () => {
    const values = [0, 1, 127, 128, 16_383, 16_384, 2 ** 21, 2 ** 31 + 5, 2 ** 49 + 3];
    expect(readVarints(writeVarints(values))).toEqual(values);
    // 300 is 0b10_0101100: 0x82 0x2c, big-endian groups.
    expect([...writeVarints([300])]).toEqual([0x82, 0x2c]);
  });

  it('takes deleted rows off the statistics: bm25 after a delete is what a table of the rest gives', () => {
    fill();
    const totals = new FtsTotals(db, 't');
    db.transaction(() => totals.deleteRows(sizes(10), remove(10)))();
    // Rows 1 and 2: a has 2 + 1 tokens, b 6 + 6.
    expect(totals.totals()).toEqual([2, 3, 12]);
    const fresh = new Database(':memory:');
    try {
      fresh.exec(`CREATE VIRTUAL TABLE t USING fts5(a, b)`);
      fresh
        .prepare('INSERT INTO t (rowid, a, b) VALUES (1, ?, ?), (2, ?, ?)')
        .run(
          'pino logger',
          'pino is the logger fastify uses',
          'hooks',
          'other words about hooks and plugins',
        );
      expect(bm25('hooks')).toEqual(
        (fresh.prepare("SELECT bm25(t) AS s FROM t WHERE t MATCH 'hooks'").all() as Array<{ s: number }>).map(
          (r) => r.s,
        ),
      );
    } finally {
      fresh.close();
    }
  });

  it('returns the same scores after the same rows are deleted and written again, in one transaction', () => {
    fill();
    const first = bm25('pino OR notes');
    const totals = new FtsTotals(db, 't');
    db.transaction(() => {
      totals.deleteRows(sizes(10), remove(10));
      for (let i = 0; i < 10; i++) insert(10 + i, 'sparrow', `sparrow notes page ${i}`);
    })();
    expect(bm25('pino OR notes')).toEqual(first);
  });

  it('leaves the statistics counting deleted rows without it, and recount repairs them', () => {
    fill();
    const first = bm25('pino');
    db.prepare('DELETE FROM t WHERE rowid >= 10').run();
    for (let i = 0; i < 10; i++) insert(10 + i, 'sparrow', `sparrow notes page ${i}`);
    // The failure this class exists for: 22 rows counted for 12.
    const totals = new FtsTotals(db, 't');
    expect(totals.totals()![0]).toBe(22);
    expect(bm25('pino')).not.toEqual(first);
    const { before, after } = totals.recount()!;
    expect(before[0]).toBe(22);
    // Twelve rows: a 2 + 1 + 10 × 1 tokens, b 6 + 6 + 10 × 4.
    expect(after).toEqual([12, 13, 52]);
    expect(bm25('pino')).toEqual(first);
  });
});
