import { describeRequestRecordsContract } from '@kbqa/core/testing';
import { openDataSource, rawDatabase } from './data-source';
import { SqliteRequestRecords } from './request-records';

describeRequestRecordsContract(SqliteRequestRecords.name, async () => {
  const ds = await openDataSource({ file: ':memory:' });
  const db = rawDatabase(ds);
  db.prepare("INSERT INTO projects (name, created_at) VALUES ('a', 'now'), ('b', 'now')").run();
  return {
    records: new SqliteRequestRecords(db),
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
