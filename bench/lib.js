// Shared helpers of the benchmark scripts: start the built service, call it, read its memory.
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const { mkdtempSync, readdirSync, readFileSync } = require('node:fs');
const { tmpdir, cpus, totalmem } = require('node:os');
const path = require('node:path');
const { requireSharedCorpus } = require('./shared-corpus');

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'apps', 'api', 'dist');

function tempDir(prefix) {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

function cli(args, env) {
  return JSON.parse(
    execFileSync(process.execPath, [path.join(DIST, 'cli.js'), ...args, '--json'], {
      env: { ...process.env, ...env },
    }).toString(),
  );
}

/** Starts `node dist/main.js` on a free port; resolves with {baseUrl, pid, stop()}. */
function startServer(env) {
  // BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS || '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, path.join(DIST, 'main.js')], {
    // Benchmarks measure throughput, not the rate limits (load generators would hit them).
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      KBQA_EMBED_MODEL: 'none',
      KBQA_RATE_CHAT_PER_MIN: '0',
      KBQA_RATE_ANON_CHAT_PER_MIN: '0',
      KBQA_RATE_INGEST_PER_MIN: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d) => {
      out += d.toString();
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve({
          baseUrl: `http://127.0.0.1:${m[1]}`,
          pid: child.pid,
          stop: () =>
            new Promise((r) => {
              child.once('exit', r);
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
}

async function post(baseUrl, p, body) {
  const res = await fetch(baseUrl + p, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

/** Peak resident set size of a process in MB (VmHWM), Linux only. */
function peakRssMb(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function machine() {
  const c = cpus();
  return `${c[0] ? c[0].model.trim() : 'unknown CPU'}, ${c.length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}`;
}

/** Polls ingestionStatus until the task completes; throws when it completed without success. */
async function waitForTask(baseUrl, taskId, pollMs = 10) {
  for (;;) {
    const s = await post(baseUrl, '/v1/ingestionStatus', { task_id: String(taskId) });
    if (s.body.status === 'completed') {
      if (!s.body.result.success) throw new Error(`task ${taskId} failed: ${s.body.result.error}`);
      return;
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * Vocabulary of the fastify-docs corpus, most frequent first: synthetic documents draw words with
 * a Zipf-like skew from it, so term frequencies look like real documentation.
 */
function corpusVocabulary() {
  const counts = new Map();
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.md'))
        for (const w of readFileSync(p, 'utf8')
          .toLowerCase()
          .match(/[a-z]{2,}/g) || [])
          counts.set(w, (counts.get(w) || 0) + 1);
    }
  };
  walk(requireSharedCorpus());
  return [...counts].sort((a, b) => b[1] - a[1]).map((x) => x[0]);
}

/**
 * One autocannon run of JSON serviceChat against `baseUrl`: every request takes the next of
 * `questions` in rotation, across connections; 10 s timeout. Resolves with autocannon's result.
 */
function chatLoad(baseUrl, key, questions, connections, duration) {
  // Required here, not at the top: only the load benchmarks use it.
  const autocannon = require('autocannon');
  let next = 0;
  return autocannon({
    url: baseUrl + '/v1/serviceChat',
    connections,
    duration,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        path: '/v1/serviceChat',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({
            api_key: key,
            question: questions[next++ % questions.length],
            history: [],
            shouldStream: false,
          }),
        }),
      },
    ],
  });
}

const SYNTHETIC_WORDS =
  'request reply hook plugin route schema validation serializer decorator logger encapsulation lifecycle server instance handler error content type parser stream payload header cookie session'.split(
    ' ',
  );

/**
 * Raw document `i` of the synthetic load (about 2 KB of words drawn by a fixed linear congruential
 * sequence, so every run ingests the same text), with a heading and, unless `sections` is false,
 * a section break every few hundred characters.
 */
function syntheticDocument(i, { sections = true } = {}) {
  let text = `# Document ${i}\n\n`;
  let n = i * 7919;
  while (text.length < 2000) {
    const sentence = [];
    for (let w = 0; w < 12; w++) {
      n = (n * 1103515245 + 12345) % 2147483648;
      sentence.push(SYNTHETIC_WORDS[n % SYNTHETIC_WORDS.length]);
    }
    text += sentence.join(' ') + '. ';
    if (sections && text.length % 600 < 80) text += '\n\n## Section\n\n';
  }
  return { source: `bench/doc-${i}`, content: text, metadata: { n: i } };
}

/** Runs a benchmark's `main`, exiting 1 with its error. */
function run(main) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}

module.exports = {
  syntheticDocument,
  run,
  chatLoad,
  ROOT,
  DIST,
  tempDir,
  cli,
  startServer,
  post,
  waitForTask,
  peakRssMb,
  percentile,
  machine,
  corpusVocabulary,
};
