import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { contractDraft } from '@kbqa/core/testing';
import { SqliteChunkIndex } from '../chunk-index';
import { openDataSource, rawDatabase } from '../data-source';
import { FtsTotals } from '../fts-totals';

describe('migration repairing the FTS5 statistics', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kbqa-fts-totals-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sets the row count and token totals of a database that counted deleted chunks to those of its chunks', async () => {
    const file = join(dir, 'kbqa.sqlite');
    let ds = await openDataSource({ file });
    let generation: number;
    try {
      const db = rawDatabase(ds);
      const project = Number(
        db.prepare("INSERT INTO projects (name, created_at) VALUES ('p', 'now')").run().lastInsertRowid,
      );
      const store = new SqliteChunkIndex(db);
      const chunks = Array.from({ length: 6 }, (_, i) => contractDraft(`hooks page ${i} of the guide`, i));
      store.replaceSources([
        {
          projectId: project,
          source: 's',
          kind: 'documents',
          documents: [{ document: { source: 's', content: 'x' }, chunks }],
        },
      ]);
      // What deleting did before FtsTotals: the rows go, the averages record keeps them.
      db.prepare('DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks ORDER BY id LIMIT 4)').run();
      db.prepare('DELETE FROM chunks WHERE id IN (SELECT id FROM chunks ORDER BY id LIMIT 4)').run();
      expect(new FtsTotals(db).totals()![0]).toBe(6);
      generation = (db.prepare('SELECT n FROM chunk_generation').get() as { n: number }).n;
      await ds.query("DELETE FROM migrations WHERE name = 'FtsTotals1734500000000'");
    } finally {
      await ds.destroy();
    }
    ds = await openDataSource({ file });
    try {
      const db = rawDatabase(ds);
      const totals = new FtsTotals(db).totals()!;
      expect(totals[0]).toBe(2);
      expect(totals).toEqual(new FtsTotals(db).recount()!.after);
      expect((db.prepare('SELECT n FROM chunk_generation').get() as { n: number }).n).toBe(generation + 1);
    } finally {
      await ds.destroy();
    }
  });
});
