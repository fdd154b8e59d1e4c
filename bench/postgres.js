// PostgreSQL for the benchmarks that compare stores: the server of KBQA_BENCH_POSTGRES_URL (default
// postgres://postgres@127.0.0.1:5432/test) and a scratch database on it per run.
'use strict';
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { SKIPPED } = require('./shared-corpus');

// pg is a dependency of the store package, not of the repository root.
const pg = require(
  require.resolve('pg', { paths: [path.join(__dirname, '..', 'packages', 'store-postgres')] }),
);
const SERVER_URL = process.env.KBQA_BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Creates `<prefix>_<pid>_<random>` on the server and resolves with its URL and drop(), which
 * drops it with its connections. Exits with SKIPPED, saying why, when the server is unreachable.
 */
async function scratchDatabase(prefix) {
  const admin = new pg.Client({ connectionString: SERVER_URL, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (e) {
    process.stderr.write(`skipped: PostgreSQL at ${SERVER_URL} is unreachable (${e.message})\n`);
    process.exit(SKIPPED);
  }
  const name = `${prefix}_${process.pid}_${randomBytes(3).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    },
  };
}

module.exports = { pg, scratchDatabase };
