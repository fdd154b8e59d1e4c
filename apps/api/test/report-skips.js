// Jest globalSetup: says, in the test output, which tests this run skips and why. A suite that is
// skipped whole prints nothing of its own (its console output is dropped), so a missing Redis
// would otherwise show only as "1 skipped".
'use strict';
const { execFileSync } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

function has(command) {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function canMountTmpfs() {
  const dir = mkdtempSync(join(tmpdir(), 'kbqa-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'ignore' });
    execFileSync('umount', [dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The machine's PostgreSQL (trust auth) for postgres.e2e-spec; undefined when it answers. */
async function postgresUnreachable() {
  const { Client } = require('pg');
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
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Why network namespaces cannot be made here (multi-host.e2e-spec), or undefined. */
function netnsUnavailable() {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'needs root on Linux';
  const probe = `kbqaprobe${process.pid}`;
  try {
    execFileSync('ip', ['netns', 'add', probe], { stdio: 'ignore' });
    execFileSync('ip', ['netns', 'del', probe], { stdio: 'ignore' });
    return undefined;
  } catch {
    return '`ip netns add` failed';
  }
}

async function reportSkips() {
  const skipped = [];
  // Read by postgres.e2e-spec and store-copy.e2e-spec (unset: the server is unreachable and the suite is skipped).
  delete process.env.KBQA_TEST_POSTGRES_SERVER;
  const postgresError = await postgresUnreachable();
  if (postgresError === undefined) {
    process.env.KBQA_TEST_POSTGRES_SERVER = '127.0.0.1:5432';
  } else {
    skipped.push(
      `PostgreSQL at 127.0.0.1:5432 (user postgres) is unreachable (${postgresError}): the API-on-PostgreSQL ` +
        'tests (postgres.e2e-spec, and the server case of store-copy.e2e-spec) are SKIPPED.',
    );
  }
  if (!process.env.REDIS_URL) {
    skipped.push(
      'REDIS_URL is not set: the BullMQ tests (bullmq, shared-data-dir, worker-crash, and the Redis cases of fairness, ' +
        'rate-limits and auth-fail-burst) are SKIPPED. Run with REDIS_URL=redis://127.0.0.1:6379 to include them.',
    );
  }
  const netns = netnsUnavailable();
  if (netns || !process.env.REDIS_URL || postgresError !== undefined) {
    const why = [
      netns && `network namespaces: ${netns}`,
      !process.env.REDIS_URL && 'no REDIS_URL',
      postgresError !== undefined && 'no PostgreSQL',
    ]
      .filter(Boolean)
      .join('; ');
    skipped.push(
      `the multi-host test (multi-host.e2e-spec: API and worker hosts in network namespaces) is SKIPPED (${why}).`,
    );
  }
  if (!has('redis-server')) {
    skipped.push('redis-server is not installed: the Redis restart test is SKIPPED.');
  }
  if (!canMountTmpfs()) {
    skipped.push('a tmpfs cannot be mounted here (needs root): the full-disk test is SKIPPED.');
  }
  const chromium = process.env.KBQA_CHROMIUM || '/usr/bin/chromium';
  if (!require('node:fs').existsSync(chromium)) {
    skipped.push(
      `${chromium} is missing: the browser tests (dashboard, widget) are SKIPPED. ` +
        'Install it with `apt-get install -y chromium` (CI does) or point KBQA_CHROMIUM at a Chromium binary.',
    );
  }
  for (const line of skipped) process.stdout.write(`\nkbqa tests: ${line}\n`);
}

module.exports = reportSkips;
// tests/binary's globalSetup asks the same question of the same server.
module.exports.postgresUnreachable = postgresUnreachable;
