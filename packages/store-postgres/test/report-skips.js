// Jest globalSetup: finds out whether the machine's PostgreSQL answers on 127.0.0.1:5432 and whether
// it has pgvector, and says in the test output which cases are skipped and why (a suite skipped
// whole prints nothing of its own, so it would otherwise show only as "skipped"). The answer
// reaches the test files through KBQA_TEST_POSTGRES_SERVER (unset: unreachable).
'use strict';
const { Client } = require('pg');

const SERVER = {
  host: '127.0.0.1',
  port: 5432,
  user: 'postgres',
  database: 'test',
  connectionTimeoutMillis: 3000,
};

async function probe() {
  const client = new Client(SERVER);
  try {
    await client.connect();
    const { rows } = await client.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
    return rows.length > 0 ? 'pgvector' : 'lexical';
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  } finally {
    await client.end().catch(() => undefined);
  }
}

module.exports = async function reportSkips() {
  delete process.env.KBQA_TEST_POSTGRES_SERVER;
  const found = await probe();
  const say = (line) => process.stdout.write(`\nkbqa tests: ${line}\n`);
  if (typeof found === 'object') {
    say(
      `PostgreSQL at ${SERVER.host}:${SERVER.port} (user ${SERVER.user}, database ${SERVER.database}) is unreachable ` +
        `(${found.error}): the PostgreSQL-server cases are SKIPPED. The PGlite + pgvector cases still run.`,
    );
    return;
  }
  process.env.KBQA_TEST_POSTGRES_SERVER = found;
  if (found === 'lexical') {
    say(
      `PostgreSQL at ${SERVER.host}:${SERVER.port} has no pgvector: its vector cases are SKIPPED and its ` +
        'lexical-only cases run; the PGlite + pgvector run covers the vector cases.',
    );
  }
};
