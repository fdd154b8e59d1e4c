import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The machine's PostgreSQL (trust auth); tests only ever touch databases they create. */
export const SERVER = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' };

/** Set by test/report-skips.js (jest globalSetup), which prints why when it is not. */
export const postgresReachable = process.env.KBQA_TEST_POSTGRES_SERVER !== undefined;

/** Runs `fn` on a connection to the server's `postgres` database, closed after. */
export async function admin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client(SERVER);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A database of its own, `<prefix>_<pid>_<random>`, dropped with its connections at the end. */
export async function createScratchDatabase(
  prefix: string,
): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  return {
    name,
    url: `postgres://${SERVER.user}@${SERVER.host}:${SERVER.port}/${name}`,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
