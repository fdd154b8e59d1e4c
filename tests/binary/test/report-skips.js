// Jest globalSetup: finds the machine's PostgreSQL (127.0.0.1:5432, trust auth) for the binary's
// PostgreSQL case and says in the test output when it is skipped, since a skipped suite prints
// nothing of its own.
'use strict';
const { Client } = require('pg');

module.exports = async function reportSkips() {
  const client = new Client({
    host: '127.0.0.1',
    port: 5432,
    user: 'postgres',
    database: 'postgres',
    connectionTimeoutMillis: 3000,
  });
  try {
    await client.connect();
    await client.query('SELECT 1');
    process.env.KBQA_TEST_POSTGRES_SERVER = '127.0.0.1:5432';
  } catch (e) {
    process.stdout.write(
      `kbqa binary tests: PostgreSQL at 127.0.0.1:5432 is unreachable (${e instanceof Error ? e.message : e}): ` +
        'the PostgreSQL case is SKIPPED\n',
    );
  } finally {
    await client.end().catch(() => undefined);
  }
};
