import { describeIndexRecordsContract } from '@kbqa/core/testing';
import { openDataSource, rawDatabase } from '../data-source';
import { SqliteIndexRepository } from './indexes';
import { SqliteTaskRepository } from './tasks';

describeIndexRecordsContract(SqliteIndexRepository.name, async () => {
  const ds = await openDataSource({ file: ':memory:' });
  const db = rawDatabase(ds);
  db.prepare("INSERT INTO projects (name, created_at) VALUES ('a', 'now'), ('b', 'now')").run();
  return {
    indexes: new SqliteIndexRepository(db),
    tasks: new SqliteTaskRepository(db),
    teardown: () => ds.destroy(),
  };
});
