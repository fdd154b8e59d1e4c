// Size and start-up time of the single executable (pnpm build:binary first): time from exec to the
// first 200 from /health, on a new data folder each run. The first run extracts the native files to
// an empty cache; the others find them there. `node bench/binary-start.js [runs]`; compare with
// `node apps/api/dist/main.js` started the same way. `--chat` instead compares chat throughput:
// the docs corpus ingested into each, then autocannon sends serviceChat with 10 clients for 10 s.
'use strict';
const { spawn } = require('node:child_process');
const { mkdtempSync, mkdirSync, readFileSync, rmSync, statSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const BINARY = path.join(ROOT, 'dist', 'kbqa-linux-x64');
const runs = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 5);

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

/** Chats a second that `command args` serves once the docs corpus is ingested. */
async function chatsPerSecond(command, args, cli, env) {
  const { execFileSync } = require('node:child_process');
  const autocannon = require('autocannon');
  const json = (argv) => JSON.parse(execFileSync(cli[0], [...cli.slice(1), ...argv, '--json'], { env }));
  const project = json(['projects', 'create', 'bench']);
  const { key } = json(['keys', 'create', '--project', String(project.id), '--kind', 'server']);
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const base = await new Promise((resolve, reject) => {
      let out = '';
      const onData = (d) => {
        out += d.toString();
        const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
        if (m) resolve(`http://127.0.0.1:${m[1]}`);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
    });
    const corpus = path.join(ROOT, 'fixtures', 'docs-corpus');
    const documents = [];
    for (const f of require('node:fs').readdirSync(corpus, { recursive: true }))
      if (f.endsWith('.md'))
        documents.push({ source: f, content: readFileSync(path.join(corpus, f), 'utf8') });
    const post = async (route, body) =>
      (
        await fetch(base + route, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: key, ...body }),
        })
      ).json();
    const { task_id } = await post('/v1/ingestDocuments', { documents });
    while ((await post('/v1/ingestionStatus', { task_id })).status !== 'completed')
      await new Promise((r) => setTimeout(r, 100));
    const result = await autocannon({
      url: `${base}/v1/serviceChat`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: key,
        question: 'How do I add a hook?',
        history: [],
        shouldStream: false,
      }),
      connections: 10,
      duration: 10,
    });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
    return result.requests.average;
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

async function chat() {
  const dir = mkdtempSync(path.join(tmpdir(), 'kbqa-binary-chat-'));
  const env = (name) => ({
    HOME: dir,
    PATH: process.env.PATH,
    HOST: '127.0.0.1',
    PORT: '0',
    KBQA_CACHE_DIR: path.join(dir, 'cache'),
    KBQA_DATA_DIR: path.join(dir, name),
    KBQA_EMBED_MODEL: 'none',
    KBQA_RATE_CHAT_PER_MIN: '0',
  });
  try {
    const dist = path.join(ROOT, 'apps', 'api', 'dist');
    const node = await chatsPerSecond(
      process.execPath,
      [path.join(dist, 'main.js')],
      [process.execPath, path.join(dist, 'cli.js')],
      env('node'),
    );
    const binary = await chatsPerSecond(BINARY, ['start'], [BINARY], env('binary'));
    console.log(
      `serviceChat, 10 clients, 10 s: node ${node.toFixed(0)} chats/s, binary ${binary.toFixed(0)} chats/s ` +
        `(binary/node ${(binary / node).toFixed(2)})`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

(process.argv.includes('--chat') ? chat() : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
