import { describe, expect, it, beforeAll, afterAll } from '@jest/globals';
import { describeChunkStoreContract, type ChunkStoreContractFixture } from '@kbqa/core/testing';
import { Pool } from 'pg';
import { openPostgresChunkStore } from '../src';
import { contractFixtures, startPglite } from './postgres-servers';

/** PGlite starts in seconds on a quiet machine and in tens of seconds on a loaded one. */
const START_MS = 180_000;

describe('PostgresChunkStore on PGlite with pgvector', () => {
  let server: Awaited<ReturnType<typeof startPglite>>;
  let pool: Pool;
  let fixture: () => Promise<ChunkStoreContractFixture>;

  beforeAll(async () => {
    server = await startPglite();
    // PGlite is one backend: one connection, so a transaction's client never waits on another.
    pool = new Pool({ host: '127.0.0.1', port: server.port, user: 'postgres', database: 'postgres', max: 1 });
    fixture = await contractFixtures(pool);
  }, START_MS);
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  it('finds pgvector and migrates once however often it is opened', async () => {
    const store = await openPostgresChunkStore(pool);
    expect(store.vectorsAvailable).toBe(true);
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM kbqa_migrations');
    expect(rows[0]!.n).toBe(1);
  });

  describeChunkStoreContract('PostgresChunkStore (PGlite, pgvector)', () => fixture(), {
    vectors: true,
    timeoutMs: 60_000,
  });
});
