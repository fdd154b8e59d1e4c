// Size and start-up time of the single executable (pnpm build:binary first): time from exec to the
// first 200 from /health, on a new data folder each run. The first run extracts the native files to
// an empty cache; the others find them there. `node bench/binary-start.js [runs]`; compare with
// `node apps/api/dist/main.js` started the same way.
'use strict';
const { spawn } = require('node:child_process');
const { mkdtempSync, mkdirSync, readFileSync, rmSync, statSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const BINARY = path.join(ROOT, 'dist', 'kbqa-linux-x64');
const runs = Number(process.argv[2] ?? 5);

async function timeToHealth(command, args, env) {
  const started = process.hrtime.bigint();
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    const onData = (d) => {
      out += d.toString();
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) resolve(m[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
    } catch {
      // not yet
    }
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  // CPU time (user + system, clock ticks of 10 ms) says what start-up costs on a busy shared machine.
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  cpu.push((Number(stat[11]) + Number(stat[12])) * 10);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return ms;
}

let cpu = [];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'kbqa-binary-bench-'));
  const base = {
    HOME: dir,
    PATH: path.join(dir, 'bin'),
    HOST: '127.0.0.1',
    PORT: '0',
    KBQA_CACHE_DIR: path.join(dir, 'cache'),
  };
  mkdirSync(base.PATH);
  const env = (i) => ({ ...base, KBQA_DATA_DIR: path.join(dir, `data-${i}`) });
  try {
    const first = await timeToHealth(BINARY, ['start'], env('first'));
    const firstCpu = cpu[0];
    cpu = [];
    const warm = [];
    for (let i = 0; i < runs; i++) warm.push(await timeToHealth(BINARY, ['start'], env(i)));
    const warmCpu = cpu;
    cpu = [];
    const node = [];
    for (let i = 0; i < runs; i++) {
      node.push(
        await timeToHealth(process.execPath, [path.join(ROOT, 'apps', 'api', 'dist', 'main.js')], {
          ...env(`node-${i}`),
          PATH: process.env.PATH,
          KBQA_EMBED_MODEL: 'none',
        }),
      );
    }
    const mb = (statSync(BINARY).size / 1024 / 1024).toFixed(1);
    console.log(`kbqa-linux-x64: ${mb} MB`);
    console.log(
      `first start (extracts to an empty cache): ${first.toFixed(0)} ms to /health, ${firstCpu} ms CPU`,
    );
    console.log(
      `start with the cache: median ${median(warm).toFixed(0)} ms over ${runs} (${warm.map((x) => x.toFixed(0)).join(', ')}), ` +
        `median ${median(warmCpu)} ms CPU`,
    );
    console.log(
      `node apps/api/dist/main.js: median ${median(node).toFixed(0)} ms over ${runs}, median ${median(cpu)} ms CPU`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
