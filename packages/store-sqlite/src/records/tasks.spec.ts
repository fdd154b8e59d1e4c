import { describeTaskRecordsContract } from '@kbqa/core/testing';
import { SqliteChunkIndex } from '../chunk-index';
import { openDataSource, rawDatabase } from '../data-source';
import { SqliteSourceListing, SqliteTaskLeaseRepository, SqliteTaskRepository } from './tasks';

describeTaskRecordsContract(SqliteTaskRepository.name, async () => {
  const ds = await openDataSource({ file: ':memory:' });
  const db = rawDatabase(ds);
  db.prepare("INSERT INTO projects (name, created_at) VALUES ('a', 'now'), ('b', 'now')").run();
  return {
    tasks: new SqliteTaskRepository(db),
    leases: new SqliteTaskLeaseRepository(db),
    sources: new SqliteSourceListing(db),
    store: new SqliteChunkIndex(db),
    sql: (statement, params = []) => {
      const stmt = db.prepare(statement);
      if (!stmt.reader) {
        stmt.run(...params);
        return Promise.resolve([]);
      }
      return Promise.resolve(stmt.all(...params) as Array<Record<string, unknown>>);
    },
    teardown: () => ds.destroy(),
  };
});
