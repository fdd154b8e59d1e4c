import { describe, beforeAll, afterAll } from '@jest/globals';
import {
  describeConversationsRecordsContract,
  type ConversationsRecordsContractFixture,
} from '@kbqa/core/testing';
import { Pool } from 'pg';
import {
  openPostgresChunkStore,
  PostgresAnalyticsRepository,
  PostgresChunkStore,
  PostgresConversationRepository,
  PostgresIntegrationRepository,
  PostgresTaughtAnswerRepository,
  PostgresVectorStore,
  recordPoolConfig,
} from '../src';
import { createScratchDatabase, SERVER, serverReachable, startPglite } from './postgres-servers';

/** PGlite starts in seconds on a quiet machine and in tens of seconds on a loaded one. */
const START_MS = 180_000;

/**
 * Fixtures over one migrated database: each case starts from empty records and chunk tables,
 * with fresh repositories (no batch or cache carries over), projects 1 and 2.
 */
async function fixtures(pool: Pool): Promise<() => Promise<ConversationsRecordsContractFixture>> {
  const available = (await openPostgresChunkStore(pool)).vectorsAvailable;
  return async () => {
    await pool.query(
      `TRUNCATE projects, sources, documents, chunks, conversations, messages, taught_answers,
         chat_integrations, integration_events, integration_threads RESTART IDENTITY CASCADE`,
    );
    await pool.query("INSERT INTO projects (name, created_at) VALUES ('a', 'now'), ('b', 'now')");
    return {
      conversations: new PostgresConversationRepository(pool),
      taught: new PostgresTaughtAnswerRepository(pool),
      analytics: new PostgresAnalyticsRepository(pool),
      integrations: new PostgresIntegrationRepository(pool),
      chunks: new PostgresChunkStore(pool, new PostgresVectorStore(pool, available)),
      sql: async (statement, params = []) => {
        let n = 0;
        const { rows } = await pool.query(
          statement.replace(/\?/g, () => `$${++n}`),
          params,
        );
        return rows as Array<Record<string, unknown>>;
      },
      teardown: () => Promise.resolve(),
    };
  };
}

describe('Conversations records on PGlite', () => {
  let server: Awaited<ReturnType<typeof startPglite>>;
  let pool: Pool;
  let fixture: () => Promise<ConversationsRecordsContractFixture>;

  beforeAll(async () => {
    server = await startPglite();
    // One backend: one connection. A plain pool: bigint ids and counts come back as text.
    pool = new Pool({ host: '127.0.0.1', port: server.port, user: 'postgres', database: 'postgres', max: 1 });
    fixture = await fixtures(pool);
  }, START_MS);
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  describeConversationsRecordsContract('PGlite', () => fixture(), { timeoutMs: 30_000 });
});

// Skipped (and said so by test/report-skips.js) when nothing answers on 127.0.0.1:5432.
const describeServer = serverReachable ? describe : describe.skip;

describeServer('Conversations records on the PostgreSQL server', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let pool: Pool;
  let fixture: () => Promise<ConversationsRecordsContractFixture>;

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    // The API's pool settings (number and timestamp parsers), as the service opens it.
    pool = new Pool({
      ...recordPoolConfig(`postgres://${SERVER.user}@${SERVER.host}:${SERVER.port}/${scratch.name}`),
      max: 4,
    });
    // Idle connections cut by the forced drop after the tests are expected, not unhandled errors.
    pool.on('error', () => undefined);
    fixture = await fixtures(pool);
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await scratch?.drop();
  });

  describeConversationsRecordsContract('PostgreSQL server', () => fixture(), { timeoutMs: 30_000 });
});
