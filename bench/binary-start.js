// Size and start-up time of the single executable (pnpm build:binary first): time from exec to the
// first 200 from /health, on a new data folder each run. The first run extracts the native files to
// an empty cache; the others find them there. With the repository's tiny generated model
// (KBQA_EMBED_MODEL), also the time until /health reports hybrid retrieval: ONNX Runtime loaded in
// the embedding worker from the cache. The same starts of `node apps/api/dist/main.js` for comparison.
// `node bench/binary-start.js [runs]` prints a markdown section (bench/run.js: binary-start).
// `--chat` instead compares chat throughput: the docs corpus ingested into each, then autocannon
// sends serviceChat with 10 clients for 10 s.
'use strict';
const { spawn } = require('node:child_process');
const { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, statSync } = require('node:fs');
const { cpus, loadavg, tmpdir } = require('node:os');
const path = require('node:path');
const { SKIPPED } = require('./shared-corpus');

const ROOT = path.join(__dirname, '..');
const BINARY = path.join(ROOT, 'dist', 'kbqa-linux-x64');
const runs = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 5);

/**
 * Starts `command`, and returns the wall time to the first 200 from /health and, when
 * `hybrid`, to the first /health that reports hybrid retrieval, with the CPU time spent by then.
 */
async function timeToHealth(command, args, env, hybrid = false) {
  const started = process.hrtime.bigint();
  const since = () => Number(process.hrtime.bigint() - started) / 1e6;
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
  let healthy;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      if (res.ok) {
        healthy ??= since();
        if (!hybrid || /** @type {any} */ (await res.json()).retrieval === 'hybrid') break;
      }
    } catch {
      // not yet
    }
  }
  const ready = since();
  // CPU time (user + system, clock ticks of 10 ms) says what start-up costs on a busy shared machine.
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const cpu = (Number(stat[11]) + Number(stat[12])) * 10;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return { healthy, ready, cpu };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${Math.round(x).toLocaleString('en-US')} ms`;

async function repeat(n, start) {
  const all = [];
  for (let i = 0; i < n; i++) all.push(await start(i));
  return {
    healthy: median(all.map((r) => r.healthy)),
    ready: median(all.map((r) => r.ready)),
    cpu: median(all.map((r) => r.cpu)),
    range: `${ms(Math.min(...all.map((r) => r.ready)))}–${ms(Math.max(...all.map((r) => r.ready)))}`,
  };
}

async function main() {
  if (!existsSync(BINARY)) {
    console.error(`${path.relative(ROOT, BINARY)} is not built: run pnpm build:binary first`);
    process.exit(SKIPPED);
  }
  const { makeTinyModel } = require('../packages/embedder/dist/testing');
  const dir = mkdtempSync(path.join(tmpdir(), 'kbqa-binary-bench-'));
  const base = {
    HOME: dir,
    PATH: path.join(dir, 'bin'),
    HOST: '127.0.0.1',
    PORT: '0',
    KBQA_CACHE_DIR: path.join(dir, 'cache'),
    KBQA_OFFLINE: '1',
    KBQA_EMBED_MODEL: 'none',
  };
  mkdirSync(base.PATH);
  const model = await makeTinyModel(path.join(dir, 'models'));
  const env = (name, embed) => ({
    ...base,
    KBQA_DATA_DIR: path.join(dir, `data-${name}`),
    ...(embed ? { KBQA_EMBED_MODEL: model } : {}),
  });
  const mainJs = [path.join(ROOT, 'apps', 'api', 'dist', 'main.js')];
  const nodeEnv = (name, embed) => ({ ...env(name, embed), PATH: process.env.PATH });
  const loadBefore = loadavg()[0];
  try {
    const first = await timeToHealth(BINARY, ['start'], env('first', true), true);
    const lexical = await repeat(runs, (i) => timeToHealth(BINARY, ['start'], env(`l${i}`, false)));
    const hybrid = await repeat(runs, (i) => timeToHealth(BINARY, ['start'], env(`h${i}`, true), true));
    const nodeLexical = await repeat(runs, (i) =>
      timeToHealth(process.execPath, mainJs, nodeEnv(`nl${i}`, false)),
    );
    const nodeHybrid = await repeat(runs, (i) =>
      timeToHealth(process.execPath, mainJs, nodeEnv(`nh${i}`, true), true),
    );
    const mb = (statSync(BINARY).size / 1e6).toFixed(1);
    const row = (what, r, hybridToo) =>
      `| ${what} | ${ms(r.healthy)} | ${hybridToo ? ms(r.ready) : '–'} | ${ms(r.cpu)} |`;
    console.log(
      [
        '## Single executable: size and start-up',
        '',
        `\`dist/kbqa-linux-x64\`: **${mb} MB** (limit 200 MB), ONNX Runtime and node-llama-cpp inside. Each start on a new data folder`,
        '(so it also creates and migrates a database), from an empty folder with an empty `PATH`; "hybrid" runs',
        `with the repository's tiny generated embedding model (KBQA_EMBED_MODEL, offline) and waits until`,
        '`/health` reports `"retrieval": "hybrid"`, i.e. ONNX Runtime has loaded the model in the embedding worker.',
        `Medians of ${runs} runs; CPU is the process's user + system time when the last measure was taken.`,
        `Load average ${loadBefore.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end, on ${cpus().length} cores:`,
        'wall times grow with the load, CPU times much less.',
        '',
        '| start | first 200 from `/health` | `/health` hybrid | CPU |',
        '|---|---|---|---|',
        row('binary, first run (extracts to an empty cache), hybrid', first, true),
        row('binary, cache warm, `KBQA_EMBED_MODEL=none`', lexical, false),
        row(`binary, cache warm, tiny model (hybrid ${hybrid.range})`, hybrid, true),
        row('`node apps/api/dist/main.js`, `KBQA_EMBED_MODEL=none`', nodeLexical, false),
        row('`node apps/api/dist/main.js`, tiny model', nodeHybrid, true),
      ].join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Chats a second that `command args` serves once the docs corpus is ingested. */
async function chatsPerSecond(command, args, cli, env) {
  const { execFileSync } = require('node:child_process');
  const autocannon = require('autocannon');
  const json = (argv) =>
    JSON.parse(execFileSync(cli[0], [...cli.slice(1), ...argv, '--json'], { env, encoding: 'utf8' }));
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
    for (const f of require('node:fs').readdirSync(corpus, { recursive: true, encoding: 'utf8' }))
      if (f.endsWith('.md'))
        documents.push({ source: f, content: readFileSync(path.join(corpus, f), 'utf8') });
    /** @returns {Promise<any>} */
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
