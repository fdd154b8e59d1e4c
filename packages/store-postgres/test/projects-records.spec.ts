import { afterAll, beforeAll, describe } from '@jest/globals';
import { describeProjectsRecordsContract, type ProjectsRecordsContractFixture } from '@kbqa/core/testing';
import { Pool } from 'pg';
import {
  migrate,
  PostgresDashboardSessionRepository,
  PostgresKeyRepository,
  PostgresProjectRepository,
  PostgresToolRepository,
  PostgresToolSourceRepository,
  recordPoolConfig,
} from '../src';
import { createScratchDatabase, SERVER, serverReachable, startPglite } from './postgres-servers';

/** PGlite starts in seconds on a quiet machine and in tens of seconds on a loaded one. */
const START_MS = 180_000;

/** Each case starts from empty records tables of the one migrated database. */
function fixtureOn(pool: () => Pool): () => Promise<ProjectsRecordsContractFixture> {
  return async () => {
    const p = pool();
    await p.query('TRUNCATE projects, dashboard_sessions RESTART IDENTITY CASCADE');
    return {
      projects: new PostgresProjectRepository(p),
      keys: new PostgresKeyRepository(p),
      sessions: new PostgresDashboardSessionRepository(p),
      tools: new PostgresToolRepository(p),
      toolSources: new PostgresToolSourceRepository(p),
      sql: async (statement, params = []) => {
        let n = 0;
        const text = statement.replace(/\?/g, () => `$${++n}`);
        return (await p.query(text, params)).rows as Array<Record<string, unknown>>;
      },
      teardown: () => Promise.resolve(),
    };
  };
}

describe('project records on PGlite', () => {
  let server: Awaited<ReturnType<typeof startPglite>>;
  let pool: Pool;
  beforeAll(async () => {
    server = await startPglite();
    // PGlite is one backend: one connection.
    pool = new Pool({ host: '127.0.0.1', port: server.port, user: 'postgres', database: 'postgres', max: 1 });
    await migrate(pool);
  }, START_MS);
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  describeProjectsRecordsContract(
    'PostgresProjectRepository (PGlite)',
    fixtureOn(() => pool),
    // PGlite's socket server drops the connection after an error: the server below runs those cases.
    { timeoutMs: 30_000, refusedWrites: false },
  );
});

// Skipped (and said so by test/report-skips.js) when nothing answers on 127.0.0.1:5432.
const describeServer = serverReachable ? describe : describe.skip;

describeServer('project records on the PostgreSQL server', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let pool: Pool;
  beforeAll(async () => {
    scratch = await createScratchDatabase();
    // The API's pool settings (number and timestamp parsers), as the service opens it.
    pool = new Pool({
      ...recordPoolConfig(`postgres://${SERVER.user}@${SERVER.host}:${SERVER.port}/${scratch.name}`),
      max: 4,
    });
    // Idle connections cut by the forced drop after the tests are expected, not unhandled errors.
    pool.on('error', () => undefined);
    await migrate(pool);
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await scratch?.drop();
  });

  describeProjectsRecordsContract(
    'PostgresProjectRepository (PostgreSQL server)',
    fixtureOn(() => pool),
    { timeoutMs: 30_000 },
  );
});
