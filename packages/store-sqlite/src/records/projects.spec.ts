import { describeProjectsRecordsContract } from '@kbqa/core/testing';
import { openDataSource, rawDatabase } from '../data-source';
import {
  SqliteDashboardSessionRepository,
  SqliteKeyRepository,
  SqliteProjectRepository,
  SqliteToolRepository,
  SqliteToolSourceRepository,
} from './projects';

describeProjectsRecordsContract(SqliteProjectRepository.name, async () => {
  const ds = await openDataSource({ file: ':memory:' });
  const db = rawDatabase(ds);
  return {
    projects: new SqliteProjectRepository(db),
    keys: new SqliteKeyRepository(db),
    sessions: new SqliteDashboardSessionRepository(db),
    tools: new SqliteToolRepository(db),
    toolSources: new SqliteToolSourceRepository(db),
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
