import { describeChunkStoreContract } from '@kbqa/core/testing';
import { SqliteChunkIndex } from './chunk-index';
import { openDataSource, rawDatabase } from './data-source';

describeChunkStoreContract(
  SqliteChunkIndex.name,
  async () => {
    const ds = await openDataSource({ file: ':memory:' });
    const db = rawDatabase(ds);
    const insert = db.prepare("INSERT INTO projects (name, created_at) VALUES (?, 'now')");
    const projects: [number, number] = [
      Number(insert.run('p1').lastInsertRowid),
      Number(insert.run('p2').lastInsertRowid),
    ];
    return { store: new SqliteChunkIndex(db), projects, teardown: () => ds.destroy() };
  },
  { vectors: true },
);
