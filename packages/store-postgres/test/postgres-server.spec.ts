import { describe, expect, it, beforeAll, afterAll } from '@jest/globals';
import {
  contractDraft,
  describeChunkStoreContract,
  type ChunkStoreContractFixture,
} from '@kbqa/core/testing';
import { Pool } from 'pg';
import { openPostgresChunkStore, type PostgresChunkStore } from '../src';
import {
  contractFixtures,
  createScratchDatabase,
  SERVER,
  serverHasPgvector,
  serverReachable,
} from './postgres-servers';

// Skipped (and said so by test/report-skips.js) when nothing answers on 127.0.0.1:5432.
const describeServer = serverReachable ? describe : describe.skip;

describeServer('PostgresChunkStore on the PostgreSQL server', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let pool: Pool;
  let fixture: () => Promise<ChunkStoreContractFixture>;

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    pool = new Pool({ ...SERVER, database: scratch.name, max: 4 });
    fixture = await contractFixtures(pool);
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await scratch?.drop();
  });

  it('migrates an empty database once when several processes open it at the same moment', async () => {
    const fresh = await createScratchDatabase();
    const pools = [1, 2, 3, 4].map(() => new Pool({ ...SERVER, database: fresh.name, max: 1 }));
    try {
      const stores = await Promise.all(pools.map((p) => openPostgresChunkStore(p)));
      expect(stores.map((s) => s.vectorsAvailable)).toEqual(stores.map(() => serverHasPgvector));
      const { rows } = await pools[0]!.query<{ n: number }>('SELECT count(*)::int AS n FROM kbqa_migrations');
      expect(rows[0]!.n).toBe(1);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
      await fresh.drop();
    }
  });

  it('lets two processes replace the same new source at once: one source, one copy of its chunks', async () => {
    await fixture();
    const pools = [1, 2].map(() => new Pool({ ...SERVER, database: scratch.name, max: 1 }));
    try {
      const stores = await Promise.all(pools.map((p) => openPostgresChunkStore(p)));
      const write = (store: PostgresChunkStore, text: string) =>
        store.replaceSources([
          {
            projectId: 1,
            source: 'same',
            kind: 'documents',
            documents: [{ document: { source: 'same', content: text }, chunks: [contractDraft(text)] }],
          },
        ]);
      const [a, b] = await Promise.all([write(stores[0]!, 'first words'), write(stores[1]!, 'second words')]);
      expect(a[0]!.sourceId).toBe(b[0]!.sourceId);
      expect((await stores[0]!.listSources(1)).map((s) => s.source)).toEqual(['same']);
      expect(await stores[0]!.countChunks(1)).toBe(1);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  describeChunkStoreContract('PostgresChunkStore (PostgreSQL server)', () => fixture(), {
    vectors: serverHasPgvector,
    timeoutMs: 30_000,
  });
});
