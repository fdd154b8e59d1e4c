// Jest globalSetup: finds the machine's PostgreSQL (127.0.0.1:5432, trust auth) for the binary's
// PostgreSQL case, with the probe the API tests use, and says in the test output when it is
// skipped, since a skipped suite prints nothing of its own.
'use strict';
const { postgresUnreachable } = require('../../../apps/api/test/report-skips');

module.exports = async function reportSkips() {
  delete process.env.KBQA_TEST_POSTGRES_SERVER;
  const error = await postgresUnreachable();
  if (error === undefined) {
    process.env.KBQA_TEST_POSTGRES_SERVER = '127.0.0.1:5432';
  } else {
    process.stdout.write(
      `kbqa binary tests: PostgreSQL at 127.0.0.1:5432 is unreachable (${error}): the PostgreSQL case is SKIPPED\n`,
    );
  }
};
