// Jest globalSetup: finds a Docker daemon that answers, and says in the test output when the suite
// is skipped, since a skipped suite prints nothing of its own. KBQA_REQUIRE_DOCKER=1 (CI, after
// .ci/run installed and started Docker) makes a missing daemon a failure instead.
'use strict';
const { execFile } = require('node:child_process');

module.exports = async function reportSkips() {
  delete process.env.KBQA_TEST_DOCKER;
  const error = await new Promise((resolve) => {
    execFile('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: 20_000 }, (e, _out, err) =>
      resolve(e ? String(err).trim().split('\n')[0] || e.message : undefined),
    );
  });
  if (error === undefined) {
    process.env.KBQA_TEST_DOCKER = '1';
    return;
  }
  if (process.env.KBQA_REQUIRE_DOCKER === '1') {
    throw new Error(`kbqa docker tests: KBQA_REQUIRE_DOCKER=1 but Docker cannot run here (${error})`);
  }
  process.stdout.write(`kbqa docker tests: Docker cannot run here (${error}): every case is SKIPPED\n`);
};
