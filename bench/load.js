// Issue 18 load benchmark: chat throughput under concurrent readers over ~60k chunks of real text.
//
// The fastify-docs corpus (Guides and Reference) is ingested as many variants through
// ingestDocuments, one variant a request: every page's source gets a `-v<n>` suffix and its text a
// variant header line, so no two chunks are byte-identical, until about BENCH_LOAD_CHUNKS (60,000)
// chunks. Then autocannon drives JSON serviceChat (extractive, lexical, KBQA_EMBED_MODEL=none, rate
// limits off) with the questions of bench/answers/questions.json in rotation, at 1 and at 50
// connections: a short warm-up, then BENCH_LOAD_SECONDS (15) measured. autocannon runs in this
// process, so the load generator shares the machine's cores with the server.
//
// Usage: node bench/load.js [--write-baseline]
//   BENCH_LOAD_DATA_DIR=<dir>  keeps the ingested data directory there and reuses it on the next
//                     run (ingestion takes a while; the chat figures do not depend on it).
//   --write-baseline  stores the figures in bench/load-baseline.json (the "before" of issue 18's
//                     change); later runs print them beside the current figures.
'use strict';
const { existsSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const Database = require('better-sqlite3');
const { tempDir, cli, startServer, post, waitForTask, chatLoad, run } = require('./lib');
const { requireSharedCorpus, corpusPages } = require('./shared-corpus');

const CORPUS = requireSharedCorpus();
const QUESTIONS = require('./answers/questions.json').map((item) => item.q);
const CHUNKS_WANTED = Number(process.env.BENCH_LOAD_CHUNKS || 60000);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS || 15);
const WARMUP_SECONDS = 3;
const BASELINE_FILE = path.join(__dirname, 'load-baseline.json');
const writeBaseline = process.argv.includes('--write-baseline');

function variant(pages, v) {
  return pages.map((p) => ({
    source: `${p.id}-v${v}`,
    content: `Variant ${v} of the Fastify documentation.\n\n${p.content}`,
  }));
}

async function ingestVariant(baseUrl, key, pages, v) {
  const res = await post(baseUrl, '/v1/ingestDocuments', { api_key: key, documents: variant(pages, v) });
  if (res.status !== 200) throw new Error(`ingestDocuments ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.task_id;
}

async function measure(baseUrl, key, connections) {
  await chatLoad(baseUrl, key, QUESTIONS, connections, WARMUP_SECONDS);
  const r = await chatLoad(baseUrl, key, QUESTIONS, connections, SECONDS);
  return {
    connections,
    chatsPerSec: r['2xx'] / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    total: r.requests.total,
  };
}

/** Ingests the variants; returns what the report says of them. */
async function ingestAll(baseUrl, key, pages, dataDir) {
  const db = new Database(path.join(dataDir, 'kbqa.sqlite'), { readonly: true });
  const countChunks = () =>
    /** @type {{ n: number }} */ (db.prepare('SELECT count(*) AS n FROM chunks').get()).n;
  const t0 = process.hrtime.bigint();
  // The first variant tells how many chunks one copy makes; the rest are queued together.
  await waitForTask(baseUrl, await ingestVariant(baseUrl, key, pages, 1), 20);
  const perCopy = countChunks();
  const copies = Math.max(1, Math.round(CHUNKS_WANTED / perCopy));
  const ids = [];
  for (let v = 2; v <= copies; v++) ids.push(await ingestVariant(baseUrl, key, pages, v));
  for (const id of ids) await waitForTask(baseUrl, id, 20);
  const ingestSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const chunks = countChunks();
  db.close();
  return { key, perCopy, copies, ingestSeconds, chunks };
}

async function main() {
  const pages = corpusPages(CORPUS);
  const keep = process.env.BENCH_LOAD_DATA_DIR ? path.resolve(process.env.BENCH_LOAD_DATA_DIR) : undefined;
  const dataDir = keep ?? tempDir('kbqa-bench-load-');
  const env = { KBQA_DATA_DIR: dataDir, REDIS_URL: '', KBQA_EMBED_MODEL: 'none' };
  const stateFile = path.join(dataDir, 'bench-load.json');
  const kept = keep && existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, 'utf8')) : undefined;
  let key = kept?.key;
  if (!kept) {
    const project = cli(['projects', 'create', 'load'], env);
    key = cli(['keys', 'create', '--project', String(project.id), '--kind', 'server'], env).key;
  }
  // startServer switches the chat, anon chat and ingest rate limits off (0).
  const server = await startServer(env);
  try {
    const built = kept ?? (await ingestAll(server.baseUrl, key, pages, dataDir));
    if (keep && !kept) writeFileSync(stateFile, JSON.stringify(built));
    const { perCopy, copies, ingestSeconds, chunks } = built;
    console.error(
      `${kept ? 'reused' : 'ingested'} ${copies} copies, ${chunks} chunks (ingestion ${ingestSeconds.toFixed(1)} s)`,
    );

    // A sanity check that the questions get answers from the corpus, not errors.
    const probe = await post(server.baseUrl, '/v1/serviceChat', {
      api_key: key,
      question: QUESTIONS[0],
      history: [],
      shouldStream: false,
    });
    if (probe.status !== 200 || !(probe.body.sources || []).length)
      throw new Error(`serviceChat probe ${probe.status}: ${JSON.stringify(probe.body).slice(0, 300)}`);

    const one = await measure(server.baseUrl, key, 1);
    console.error(`1 connection: ${JSON.stringify(one)}`);
    const fifty = await measure(server.baseUrl, key, 50);
    console.error(`50 connections: ${JSON.stringify(fifty)}`);

    // autocannon counts timeouts among its errors.
    const failures = (r) => r.errors + r.non2xx;
    const ratio = fifty.chatsPerSec / one.chatsPerSec;
    const yes = (ok) => (ok ? 'yes' : 'no');
    const figures = { date: new Date().toISOString().slice(0, 10), chunks, one, fifty };
    if (writeBaseline) writeFileSync(BASELINE_FILE, JSON.stringify(figures, null, 2) + '\n');
    const base = existsSync(BASELINE_FILE) ? JSON.parse(readFileSync(BASELINE_FILE, 'utf8')) : undefined;
    const before = (r) =>
      r
        ? `${r.chatsPerSec.toFixed(0)} chats/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${failures(r)} failed`
        : '–';
    const out = [];
    out.push('## Chat under load (issue 18)\n');
    out.push(
      `JSON serviceChat (extractive, lexical, no embedding model, rate limits off) over ${chunks} chunks: the ` +
        `fastify-docs Guides and Reference (${pages.length} pages, ${perCopy} chunks a copy) ingested as ` +
        `${copies} variants (${copies * pages.length} pages) in ${ingestSeconds.toFixed(1)} s, one variant per ` +
        `ingestDocuments request. autocannon, in the benchmark's process (it shares the cores with the ` +
        `server), sends the ${QUESTIONS.length} questions of bench/answers/questions.json in rotation: ` +
        `${WARMUP_SECONDS} s warm-up, then ${SECONDS} s measured at each concurrency, 10 s timeout; latencies in whole ms.\n`,
    );
    out.push(
      `| clients | chats/s | p50 ms | p99 ms | errors (of them timeouts) / non-2xx | target | met | before (${base ? `bench/load-baseline.json, ${base.date}, ${base.chunks} chunks` : 'no baseline stored'}) |`,
    );
    out.push('|---|---|---|---|---|---|---|---|');
    out.push(
      `| 1 | ${one.chatsPerSec.toFixed(0)} | ${one.p50} | ${one.p99} | ${one.errors} (${one.timeouts}) / ${one.non2xx} | p50 ≤ 10 ms | ${yes(one.p50 <= 10)} | ${before(base?.one)} |`,
    );
    out.push(
      `| 50 | ${fifty.chatsPerSec.toFixed(0)} | ${fifty.p50} | ${fifty.p99} | ${fifty.errors} (${fifty.timeouts}) / ${fifty.non2xx} | ≥ 1.8× one client (ratio ${ratio.toFixed(2)}) and ≥ 250 chats/s, p99 ≤ 500 ms, no errors | ${yes(ratio >= 1.8 && fifty.chatsPerSec >= 250 && fifty.p99 <= 500 && failures(fifty) === 0)} | ${before(base?.fifty)} |`,
    );
    out.push(
      '\nThe "before" column is the run stored with `node bench/load.js --write-baseline` before issue 18\'s ' +
        'change (search and answer composition on the event loop).',
    );
    console.log(out.join('\n'));
  } finally {
    await server.stop();
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

run(main);
