// Builds the API and the packages it uses when sources changed (turbo's cache makes this a
// no-op otherwise), showing turbo's output only when the build fails, so `pnpm -s kbqa … --json`
// prints nothing but the command's own JSON. `buildWithProgress` (pnpm start, and `pnpm kbqa` on a
// terminal) also says on stderr which package it builds, since a first build takes a minute or two.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
const turbo = path.join(root, 'node_modules', '.bin', 'turbo');
const args = ['run', 'build', '--filter=kbqa...'];
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', TURBO_NO_UPDATE_NOTIFIER: '1' };

function fail(output, status) {
  process.stderr.write(output);
  process.stderr.write('kbqa: the build failed (output above)\n');
  process.exit(status ?? 1);
}

/** Builds quietly; exits the process with turbo's output when the build fails. */
function ensureBuilt() {
  const result = spawnSync(turbo, [...args, '--output-logs=errors-only'], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  if (result.status !== 0) fail((result.stdout ?? '') + (result.stderr ?? ''), result.status);
}

/**
 * Builds, printing a line per package built (turbo's `hash-only` logs say "<package>:build: cache
 * miss" as each one starts, and nothing else) and one when done; silent when nothing changed.
 */
function buildWithProgress() {
  const started = Date.now();
  const child = spawn(turbo, [...args, '--output-logs=hash-only'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let all = '';
  let pending = '';
  let built = 0;
  const onData = (data) => {
    all += data;
    pending += data;
    const lines = pending.split('\n');
    pending = lines.pop();
    for (const line of lines) {
      // eslint-disable-next-line no-control-regex -- strips the terminal's colour codes (ESC [ … m) from turbo's log
      const m = /^(\S+):build: cache miss/.exec(line.replace(/\x1b\[[0-9;]*m/g, '').trim());
      if (!m) continue;
      if (built++ === 0)
        process.stderr.write(
          'kbqa: building what changed since the last build (a first build takes a minute or two)\n',
        );
      process.stderr.write(`kbqa: building ${m[1]}\n`);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      if (code !== 0) fail(all, code);
      if (built > 0)
        process.stderr.write(
          `kbqa: built ${built} package(s) in ${Math.round((Date.now() - started) / 1000)} s\n`,
        );
      resolve();
    });
  });
}

module.exports = { buildWithProgress };
// `pnpm kbqa …`: progress only on a terminal (it goes to stderr, so `--json` output stays clean).
if (require.main === module) {
  if (process.stderr.isTTY) void buildWithProgress();
  else ensureBuilt();
}
