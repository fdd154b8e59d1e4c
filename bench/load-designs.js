// Issue 18: the designs for reads under load, measured side by side on the data directory that
// bench/load.js keeps (BENCH_LOAD_DATA_DIR, run that first): one process with search on the event
// loop (KBQA_READ_WORKERS=0), one process with a read pool of 1 and of 2 workers, and two processes
// on the one data directory without a pool (each gets half the clients, as a balancer would give).
// JSON serviceChat at 1 and 50 clients, BENCH_LOAD_SECONDS (10) each after a 3 s warm-up; then the
// time to the first SSE event (the sources) of 126 streamed chats, one at a time.
//
// Usage: BENCH_LOAD_DATA_DIR=<dir> node bench/load-designs.js
'use strict';
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { startServer, chatLoad, run } = require('./lib');

const DIR = process.env.BENCH_LOAD_DATA_DIR;
if (!DIR) throw new Error('set BENCH_LOAD_DATA_DIR to the directory bench/load.js kept');
const { key, chunks } = JSON.parse(readFileSync(path.join(DIR, 'bench-load.json'), 'utf8'));
const QUESTIONS = require('./answers/questions.json').map((item) => item.q);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS || 10);

/** Milliseconds to the first SSE event (the sources), `n` streamed chats one after another: p50, p99. */
async function firstEvent(baseUrl, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    const res = await fetch(baseUrl + '/v1/serviceChat', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ api_key: key, question: QUESTIONS[i % QUESTIONS.length], history: [] }),
    });
    const reader = res.body.getReader();
    let got = '';
    while (!got.includes('\n\n')) got += Buffer.from((await reader.read()).value).toString();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    while (!(await reader.read()).done);
  }
  times.sort((a, b) => a - b);
  const at = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(0);
  return `${at(0.5)} / ${at(0.99)}`;
}

/** Clients split evenly over the servers; figures summed (rate) and merged (latency: the worse). */
async function measure(urls, connections) {
  const per = Math.max(1, Math.floor(connections / urls.length));
  const targets = connections === 1 ? urls.slice(0, 1) : urls;
  await Promise.all(targets.map((u) => chatLoad(u, key, QUESTIONS, per, 3)));
  const runs = await Promise.all(targets.map((u) => chatLoad(u, key, QUESTIONS, per, SECONDS)));
  return {
    chatsPerSec: Math.round(runs.reduce((s, r) => s + r['2xx'] / r.duration, 0)),
    p50: Math.max(...runs.map((r) => r.latency.p50)),
    p99: Math.max(...runs.map((r) => r.latency.p99)),
    failed: runs.reduce((s, r) => s + r.errors + r.non2xx, 0),
  };
}

async function design(name, envs) {
  const servers = [];
  try {
    for (const env of envs) servers.push(await startServer({ KBQA_DATA_DIR: DIR, REDIS_URL: '', ...env }));
    const urls = servers.map((s) => s.baseUrl);
    const one = await measure(urls, 1);
    const fifty = await measure(urls, 50);
    const sse = await firstEvent(urls[0], 126);
    console.log(
      `| ${name} | ${one.chatsPerSec} | ${one.p50} | ${fifty.chatsPerSec} | ${fifty.p50} | ${fifty.p99} | ${fifty.failed} | ${sse} |`,
    );
  } finally {
    for (const s of servers) await s.stop();
  }
}

async function main() {
  console.log(`${chunks} chunks, ${SECONDS} s a run\n`);
  console.log(
    '| design | 1 client chats/s | p50 ms | 50 clients chats/s | p50 ms | p99 ms | failed | first SSE event p50 / p99 ms (1 client) |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  await design('one process, search on the event loop', [{ KBQA_READ_WORKERS: '0' }]);
  await design('one process, read pool of 1', [{ KBQA_READ_WORKERS: '1' }]);
  await design('one process, read pool of 2', [{ KBQA_READ_WORKERS: '2' }]);
  await design('two processes, no pool', [
    { KBQA_READ_WORKERS: '0' },
    { KBQA_READ_WORKERS: '0', KBQA_WORKER: '0' },
  ]);
}

run(main);
