// Builds the API and the packages it uses when sources changed (turbo's cache makes this a
// no-op otherwise), showing turbo's output only when the build fails, so `pnpm -s kbqa … --json`
// prints nothing but the command's own JSON.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const turbo = path.join(__dirname, '..', 'node_modules', '.bin', 'turbo');
const result = spawnSync(turbo, ['run', 'build', '--filter=kbqa...', '--output-logs=errors-only'], {
  cwd: path.join(__dirname, '..'),
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', TURBO_NO_UPDATE_NOTIFIER: '1' },
  encoding: 'utf8',
});
if (result.status !== 0) {
  process.stderr.write(result.stdout ?? '');
  process.stderr.write(result.stderr ?? '');
  process.stderr.write('kbqa: the build failed (output above)\n');
  process.exit(result.status ?? 1);
}
