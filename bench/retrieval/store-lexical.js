// Lexical retrieval of the SQLite store (FTS5 BM25) against the PostgreSQL store (weighted tsvector,
// BM25 from tsvector term statistics; and Postgres's own ts_rank_cd) on the fastify-docs questions of quality.js: the same pages, chunked by the same
// MarkdownChunker, written through ChunkStore.replaceSources and searched with
// search({ mode: 'lexical', topK: 20 }); hit@1, hit@5 and MRR@10 over pages, chunks deduplicated
// to pages in rank order. Only the store differs, so a gap is the store's (quality.js scores what
// serviceChat returns, after the answer step). Needs PostgreSQL (KBQA_BENCH_POSTGRES_URL, default
// postgres://postgres@127.0.0.1:5432/test): it creates a scratch database there and drops it.
'use strict';
const { pg, scratchDatabase } = require('../postgres');
const { requireSharedCorpus, corpusPages } = require('../shared-corpus');
const { MarkdownChunker } = require('../../packages/chunker/dist');
const { SqliteChunkIndex, openDataSource, rawDatabase } = require('../../packages/store-sqlite/dist');
const { openPostgresChunkStore } = require('../../packages/store-postgres/dist');

const CORPUS = requireSharedCorpus();
const QUESTIONS = require('./questions.json');
const HOLDOUT = require('./questions-holdout.json');

function score(questions, rankings) {
  let h1 = 0;
  let h5 = 0;
  let mrr = 0;
  rankings.forEach((ranked, i) => {
    const expected = new Set(questions[i].pages);
    const rank = ranked.slice(0, 10).findIndex((p) => expected.has(p));
    if (rank === 0) h1++;
    if (rank >= 0 && rank < 5) h5++;
    if (rank >= 0) mrr += 1 / (rank + 1);
    if (process.env.QUALITY_VERBOSE)
      console.error(`${rank + 1}\t${questions[i].q}\t${ranked.slice(0, 3).join(' ')}`);
  });
  const n = rankings.length;
  return { hit1: h1 / n, hit5: h5 / n, mrr: mrr / n };
}

async function evaluate(store, projectId, pages) {
  const chunker = new MarkdownChunker();
  const inputs = pages.map((p) => {
    const document = { source: p.id, content: p.content, link: p.id };
    return {
      projectId,
      source: p.id,
      kind: 'documents',
      documents: [{ document, chunks: chunker.chunk(document) }],
    };
  });
  const started = Date.now();
  for (let i = 0; i < inputs.length; i += 25) await store.replaceSources(inputs.slice(i, i + 25));
  const ingestMs = Date.now() - started;
  const times = [];
  const ask = async (questions) => {
    const ranked = [];
    for (const { q } of questions) {
      const t = process.hrtime.bigint();
      const hits = await store.search({ projectId, text: q, topK: 20, mode: 'lexical' });
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
      ranked.push([...new Set(hits.map((h) => h.source))]);
    }
    return ranked;
  };
  const main = score(QUESTIONS, await ask(QUESTIONS));
  const holdout = score(HOLDOUT, await ask(HOLDOUT));
  times.sort((a, b) => a - b);
  return {
    main,
    holdout,
    ingestMs,
    p50: times[Math.floor(times.length / 2)],
    chunks: await store.countChunks(projectId),
  };
}

async function main() {
  const pages = corpusPages(CORPUS);
  const ds = await openDataSource({ file: ':memory:' });
  rawDatabase(ds).prepare("INSERT INTO projects (name, created_at) VALUES ('bench', 'now')").run();
  const sqlite = await evaluate(new SqliteChunkIndex(rawDatabase(ds)), 1, pages);
  await ds.destroy();

  const scratch = await scratchDatabase('kbqa_bench');
  const pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
  // An idle client closed by the server must not end the process as an unhandled 'error' event.
  pool.on('error', () => undefined);
  let postgres;
  let tsRank;
  try {
    postgres = await evaluate(await openPostgresChunkStore(pool), 1, pages);
    // The same rows ranked by Postgres's own ts_rank_cd, which BM25 replaced.
    tsRank = await evaluate(await openPostgresChunkStore(pool, { ranking: 'ts_rank_cd' }), 2, pages);
  } finally {
    await pool.end();
    await scratch.drop();
  }

  const f = (x) => x.toFixed(3);
  console.log(`## Lexical retrieval by store (${pages.length} pages, ${sqlite.chunks} chunks)\n`);
  console.log('| store | set | hit@1 | hit@5 | MRR@10 |');
  console.log('|---|---|---|---|---|');
  for (const [label, r] of /** @type {const} */ ([
    ['SQLite (FTS5 BM25)', sqlite],
    ['PostgreSQL (tsvector, BM25, default)', postgres],
    ['PostgreSQL (tsvector, ts_rank_cd)', tsRank],
  ])) {
    console.log(
      `| ${label} | main (${QUESTIONS.length}) | ${f(r.main.hit1)} | ${f(r.main.hit5)} | ${f(r.main.mrr)} |`,
    );
    console.log(
      `| ${label} | held-out (${HOLDOUT.length}) | ${f(r.holdout.hit1)} | ${f(r.holdout.hit5)} | ${f(r.holdout.mrr)} |`,
    );
  }
  console.log(
    `\nIngestion (replaceSources, 25 pages a call): SQLite ${sqlite.ingestMs} ms, PostgreSQL ${postgres.ingestMs} ms. ` +
      `Lexical query p50: SQLite ${sqlite.p50.toFixed(1)} ms, PostgreSQL ${postgres.p50.toFixed(1)} ms.`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
