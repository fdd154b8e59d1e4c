import { describeConversationsRecordsContract } from '@kbqa/core/testing';
import { SqliteChunkIndex } from '../chunk-index';
import { openDataSource, rawDatabase } from '../data-source';
import {
  SqliteAnalyticsRepository,
  SqliteConversationRepository,
  SqliteIntegrationRepository,
  SqliteTaughtAnswerRepository,
} from './conversations';

describeConversationsRecordsContract('SQLite', async () => {
  const ds = await openDataSource({ file: ':memory:' });
  const db = rawDatabase(ds);
  db.prepare("INSERT INTO projects (name, created_at) VALUES ('a', 'now'), ('b', 'now')").run();
  return {
    conversations: new SqliteConversationRepository(db),
    taught: new SqliteTaughtAnswerRepository(db),
    analytics: new SqliteAnalyticsRepository(db),
    integrations: new SqliteIntegrationRepository(db),
    chunks: new SqliteChunkIndex(db),
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
