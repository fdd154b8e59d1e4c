import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import type { ChunkStoreContractFixture } from '@kbqa/core/testing';
import { openPostgresChunkStore, PostgresChunkStore, PostgresVectorStore } from '../src';

/** The machine's PostgreSQL (trust auth); tests only ever touch a database they create. */
export const SERVER = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };

/** Set by test/report-skips.js (jest globalSetup). */
export const serverReachable = process.env.KBQA_TEST_POSTGRES_SERVER !== undefined;
/** Whether the machine's server has pgvector to install (Debian 12's PostgreSQL 15 has not). */
export const serverHasPgvector = process.env.KBQA_TEST_POSTGRES_SERVER === 'pgvector';

/** A database of its own on the machine's server, dropped (connections and all) at the end. */
export async function createScratchDatabase(): Promise<{ name: string; drop: () => Promise<void> }> {
  const name = `kbqa_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new Client(SERVER);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    drop: async () => {
      const c = new Client(SERVER);
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** PGlite with pgvector served over the wire protocol on a free port of 127.0.0.1 (test/pglite-server.js). */
export async function startPglite(): Promise<{ port: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = fork(join(__dirname, 'pglite-server.js'), [String(port)], { stdio: 'inherit' });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the PGlite server exited with ${code}`)));
  });
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send('stop');
      }),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Contract fixtures over one migrated database: each case starts from empty tables (and no
 * vector table), with a fresh store object so no cache carries over.
 */
export async function contractFixtures(pool: Pool): Promise<() => Promise<ChunkStoreContractFixture>> {
  const available = (await openPostgresChunkStore(pool)).vectorsAvailable;
  return async () => {
    await pool.query('DROP TABLE IF EXISTS chunk_vectors');
    await pool.query('TRUNCATE sources, documents, chunks, index_meta RESTART IDENTITY CASCADE');
    return {
      store: new PostgresChunkStore(pool, new PostgresVectorStore(pool, available)),
      projects: [1, 2],
      teardown: () => Promise.resolve(),
    };
  };
}
