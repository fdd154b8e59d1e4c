// Issue 16: chat throughput of the service on PostgreSQL with one and with two API processes.
// A scratch database on the machine's PostgreSQL (KBQA_BENCH_POSTGRES_URL, default
// postgres://postgres@127.0.0.1:5432/test; created and dropped here) gets the fastify-docs Guides
// and Reference as BENCH_PG_VARIANTS (10) variants through ingestDocuments. Then autocannon sends
// JSON serviceChat (extractive, lexical, rate limits off) with the questions of
// bench/answers/questions.json in rotation from 50 connections: to one API process, then to two
// API processes on the same database (25 connections each, run at the same time, summed).
// Workers run in the first process only (KBQA_WORKER=0 in the second). The load generator shares
// the machine's two cores with the servers and PostgreSQL.
//
// Steady state, in rounds: both processes are started first and each is warmed alone under the
// same load (BENCH_PG_WARM_SECONDS, 10: a process's first seconds read its posting lists, hit rows
// and document frequencies, and without this warm-up the first "one process" figure was up to 2x
// lower than the next one), then BENCH_PG_ROUNDS (3) rounds each measure one process and then two
// (3 s warm-up, BENCH_PG_SECONDS). Each round's ratio is printed; the median is the result.
'use strict';
const { rmSync } = require('node:fs');
const { pg, scratchDatabase } = require('./postgres');
const { tempDir, cli, startServer, post, waitForTask, chatLoad, run } = require('./lib');
const { requireSharedCorpus, corpusPages } = require('./shared-corpus');

const CORPUS = requireSharedCorpus();
const QUESTIONS = require('./answers/questions.json').map((item) => item.q);
const VARIANTS = Number(process.env.BENCH_PG_VARIANTS || 10);
const SECONDS = Number(process.env.BENCH_PG_SECONDS || 15);
const WARM_SECONDS = Number(process.env.BENCH_PG_WARM_SECONDS || 10);
const ROUNDS = Number(process.env.BENCH_PG_ROUNDS || 3);

/** 50 connections spread over the given servers at once; chats/s summed, latencies of the slowest. */
async function measure(urls, key) {
  const each = Math.floor(50 / urls.length);
  await Promise.all(urls.map((u) => chatLoad(u, key, QUESTIONS, each, 3)));
  const runs = await Promise.all(urls.map((u) => chatLoad(u, key, QUESTIONS, each, SECONDS)));
  return {
    chatsPerSec: runs.reduce((n, r) => n + r['2xx'] / r.duration, 0),
    p50: Math.max(...runs.map((r) => r.latency.p50)),
    p99: Math.max(...runs.map((r) => r.latency.p99)),
    failed: runs.reduce((n, r) => n + r.errors + r.non2xx, 0),
  };
}

/**
 * Sequential scans of the conversations table so far (each message's foreign-key check should
 * find its conversation through the primary key), after ANALYZE when `analyze` is set.
 */
async function conversationScans(url, analyze) {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    if (analyze) await db.query('ANALYZE');
    const { rows } = await db.query(
      "SELECT seq_scan::int AS n, n_live_tup::int AS rows FROM pg_stat_user_tables WHERE relname = 'conversations'",
    );
    return rows[0];
  } finally {
    await db.end();
  }
}

async function main() {
  const scratch = await scratchDatabase('kbqa_bench_chat');
  const dirs = [tempDir('kbqa-bench-pg-a-'), tempDir('kbqa-bench-pg-b-')];
  const env = (dir) => ({ KBQA_DATA_DIR: dir, KBQA_DATABASE_URL: scratch.url, REDIS_URL: '' });
  const servers = [];
  try {
    const project = cli(['projects', 'create', 'pg-chat'], env(dirs[0]));
    const key = cli(
      ['keys', 'create', '--project', String(project.id), '--kind', 'server'],
      env(dirs[0]),
    ).key;
    servers.push(await startServer(env(dirs[0])));
    const pages = corpusPages(CORPUS);
    const t0 = process.hrtime.bigint();
    for (let v = 1; v <= VARIANTS; v++) {
      const res = await post(servers[0].baseUrl, '/v1/ingestDocuments', {
        api_key: key,
        documents: pages.map((p) => ({
          source: `${p.id}-v${v}`,
          content: `Variant ${v} of the Fastify documentation.\n\n${p.content}`,
        })),
      });
      await waitForTask(servers[0].baseUrl, res.body.task_id, 120);
    }
    const ingestSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const documents = VARIANTS * pages.length;
    // Statistics and the visibility map, as autovacuum leaves them shortly after a bulk load.
    const db = new pg.Client({ connectionString: scratch.url });
    await db.connect();
    let rows;
    try {
      await db.query('VACUUM ANALYZE');
      ({ rows } = await db.query('SELECT count(*)::int AS n FROM chunks'));
    } finally {
      await db.end();
    }
    const chunks = rows[0].n;
    console.error(`ingested ${documents} documents (${chunks} chunks) in ${ingestSeconds.toFixed(1)} s`);

    servers.push(await startServer({ ...env(dirs[1]), KBQA_WORKER: '0' }));
    for (const s of servers) await chatLoad(s.baseUrl, key, QUESTIONS, 50, WARM_SECONDS);
    // Statistics as autovacuum leaves them in steady state, with conversations and messages in the
    // tables. The ANALYZE after ingestion saw both empty, and a plan made from that (the foreign-key
    // check of each message insert, cached per connection) scans the whole conversations table until
    // autovacuum's next ANALYZE, which a short run may not reach: 77 million rows read in one round.
    let scans = await conversationScans(scratch.url, true);
    const rounds = [];
    for (let r = 1; r <= ROUNDS; r++) {
      const one = await measure([servers[0].baseUrl], key);
      const two = await measure(
        servers.map((s) => s.baseUrl),
        key,
      );
      const after = await conversationScans(scratch.url, false);
      rounds.push({ one, two, ratio: two.chatsPerSec / one.chatsPerSec, seqScans: after.n - scans.n });
      scans = after;
      console.error(`round ${r}: ${JSON.stringify(rounds[rounds.length - 1])}`);
    }
    const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)];
    console.log('## Chat on PostgreSQL, one and two API processes (issue 16)\n');
    console.log(
      `JSON serviceChat (extractive, lexical; the server has no pgvector) over ${chunks} chunks (fastify-docs ` +
        `Guides and Reference as ${VARIANTS} variants, ${documents} documents ingested through the API in ` +
        `${ingestSeconds.toFixed(1)} s: ${(documents / ingestSeconds).toFixed(1)} documents/s), 50 autocannon ` +
        `connections in the benchmark's process; with two processes 25 connections each, at the same time. ` +
        `Both processes warmed alone for ${WARM_SECONDS} s, then ${ROUNDS} rounds of one process and two ` +
        `(3 s warm-up, then ${SECONDS} s each). Both processes and PostgreSQL share the machine's cores with ` +
        'the load generator.\n',
    );
    console.log('| round | API processes | chats/s | p50 ms | p99 ms | failed | two / one |');
    console.log('|---|---|---|---|---|---|---|');
    rounds.forEach(({ one, two, ratio }, i) => {
      for (const [n, r] of /** @type {const} */ ([
        [1, one],
        [2, two],
      ]))
        console.log(
          `| ${i + 1} | ${n} | ${r.chatsPerSec.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.failed} | ${n === 2 ? ratio.toFixed(2) : ''} |`,
        );
    });
    console.log(
      `\nSequential scans of the conversations table during the rounds: ${rounds.map((r) => r.seqScans).join(', ')} ` +
        '(statistics analyzed after the warm-up; see the comment in bench/postgres-chat.js).',
    );
    console.log(
      `\nTwo processes serve ${median.ratio.toFixed(2)}x the chats of one in the median round ` +
        `(target: at least 1.3x, ${median.ratio >= 1.3 ? 'met' : 'not met'}).`,
    );
  } finally {
    for (const s of servers) await s.stop();
    await scratch.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

run(main);
