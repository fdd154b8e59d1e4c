import { afterAll, beforeAll, describe } from '@jest/globals';
import { describeIndexRecordsContract, type IndexRecordsContractFixture } from '@kbqa/core/testing';
import { Pool } from 'pg';
import { migrate, PostgresIndexRepository, PostgresTaskRepository, recordPoolConfig } from '../src';
import { createScratchDatabase, SERVER, serverReachable, startPglite } from './postgres-servers';

/** PGlite starts in seconds on a quiet machine and in tens of seconds on a loaded one. */
const START_MS = 180_000;

/**
 * A fixture over one migrated database, with the API's pool settings (number and timestamp
 * parsers) as the service opens it: each case starts from empty tables and projects 1 and 2.
 */
function fixture(pool: () => Pool): () => Promise<IndexRecordsContractFixture> {
  return async () => {
    const p = pool();
    await migrate(p);
    await p.query('TRUNCATE projects, indexes, ingestion_tasks RESTART IDENTITY CASCADE');
    await p.query("INSERT INTO projects (name, created_at) VALUES ('a', 'now'), ('b', 'now')");
    return {
      indexes: new PostgresIndexRepository(p),
      tasks: new PostgresTaskRepository(p),
      teardown: () => Promise.resolve(),
    };
  };
}

describe('index records on PGlite', () => {
  let server: Awaited<ReturnType<typeof startPglite>>;
  let pool: Pool;

  beforeAll(async () => {
    server = await startPglite();
    // PGlite is one backend: one connection, so a transaction's client never waits on another.
    pool = new Pool({
      ...recordPoolConfig(`postgres://postgres@127.0.0.1:${server.port}/postgres`),
      max: 1,
    });
  }, START_MS);
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  describeIndexRecordsContract(
    'PostgresIndexRepository (PGlite)',
    fixture(() => pool),
    { timeoutMs: 30_000 },
  );
});

// Skipped (and said so by test/report-skips.js) when nothing answers on 127.0.0.1:5432.
const describeServer = serverReachable ? describe : describe.skip;

describeServer('index records on the PostgreSQL server', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let pool: Pool;

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    // Several connections, so that claims made at once really race.
    pool = new Pool({
      ...recordPoolConfig(`postgres://${SERVER.user}@${SERVER.host}:${SERVER.port}/${scratch.name}`),
      max: 4,
    });
    // Idle connections cut by the forced drop after the tests are expected, not unhandled errors.
    pool.on('error', () => undefined);
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await scratch?.drop();
  });

  describeIndexRecordsContract(
    'PostgresIndexRepository (PostgreSQL server)',
    fixture(() => pool),
    { timeoutMs: 30_000 },
  );
});
