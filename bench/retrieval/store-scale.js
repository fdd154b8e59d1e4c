// Issue 16: the SQLite and the PostgreSQL store at about 100k chunks of real text. The fastify-docs
// pages (Guides and Reference) are written as many variants (each page's source gets a `-v<n>`
// suffix and its text a variant line, so no two chunks are byte-identical) through
// ChunkStore.replaceSources, 25 documents a call, until BENCH_STORE_CHUNKS (100,000) chunks; the
// write rate is reported as documents/s. Then every question of bench/retrieval (main and held-out)
// is searched once to warm up and once measured, lexical, topK 10: p50 and p99 per store.
// PostgreSQL is queried after VACUUM ANALYZE, the state autovacuum brings a table to shortly
// after a bulk load. Hybrid is measured where the database has pgvector (the machine's PostgreSQL 15 has not; then
// the PostgreSQL store is lexical-only and the hybrid row says so).
//
// Needs PostgreSQL (KBQA_BENCH_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test): it
// creates a scratch database there and drops it.
//
// Usage: node bench/retrieval/store-scale.js [--json]
'use strict';
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { pg, scratchDatabase } = require('../postgres');
const { requireSharedCorpus, corpusPages } = require('../shared-corpus');
const { percentile } = require('../lib');
const { MarkdownChunker } = require('../../packages/chunker/dist');
const { SqliteChunkIndex, openDataSource, rawDatabase } = require('../../packages/store-sqlite/dist');
const { openPostgresChunkStore } = require('../../packages/store-postgres/dist');

const CORPUS = requireSharedCorpus();
const QUESTIONS = [...require('./questions.json'), ...require('./questions-holdout.json')].map((x) => x.q);
const CHUNKS_WANTED = Number(process.env.BENCH_STORE_CHUNKS || 100000);

/** replaceSources inputs of one variant of the corpus. */
function variantInputs(pages, v, projectId) {
  const chunker = new MarkdownChunker();
  return pages.map((p) => {
    const document = {
      source: `${p.id}-v${v}`,
      content: `Variant ${v} of the Fastify documentation.\n\n${p.content}`,
      link: `${p.id}-v${v}`,
    };
    return {
      projectId,
      source: document.source,
      kind: 'documents',
      documents: [{ document, chunks: chunker.chunk(document) }],
    };
  });
}

async function fill(store, projectId, pages) {
  const perCopy = variantInputs(pages, 1, projectId).reduce((n, i) => n + i.documents[0].chunks.length, 0);
  const copies = Math.max(1, Math.round(CHUNKS_WANTED / perCopy));
  let documents = 0;
  const started = process.hrtime.bigint();
  for (let v = 1; v <= copies; v++) {
    const inputs = variantInputs(pages, v, projectId);
    for (let i = 0; i < inputs.length; i += 25) await store.replaceSources(inputs.slice(i, i + 25));
    documents += inputs.length;
    if (v % 10 === 0) process.stderr.write(`  ${v}/${copies} variants\n`);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { documents, docsPerSec: documents / seconds, chunks: await store.countChunks(projectId) };
}

async function latency(store, projectId, mode) {
  const run = async () => {
    const times = [];
    const tops = [];
    for (const q of QUESTIONS) {
      const t = process.hrtime.bigint();
      const hits = await store.search({ projectId, text: q, topK: 10, mode });
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
      tops.push(hits.map((h) => h.source).join(' '));
    }
    return { times, tops };
  };
  await run();
  const { times, tops } = await run();
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), tops };
}

async function measure(label, store, projectId, pages, settle) {
  process.stderr.write(`${label}: writing\n`);
  const written = await fill(store, projectId, pages);
  // What autovacuum does within a minute or so of a bulk load (statistics, visibility map for
  // index-only scans); measured after it, as a service that has been running would be.
  if (settle) await settle();
  process.stderr.write(
    `${label}: ${written.chunks} chunks, ${written.docsPerSec.toFixed(0)} documents/s; querying\n`,
  );
  const lexical = await latency(store, projectId, 'lexical');
  return { label, ...written, lexical };
}

async function main() {
  const pages = corpusPages(CORPUS);
  const dir = mkdtempSync(path.join(tmpdir(), 'kbqa-bench-scale-'));
  const scratch = await scratchDatabase('kbqa_bench_scale');
  const results = [];
  let vectors = false;
  try {
    const ds = await openDataSource({ file: path.join(dir, 'kbqa.sqlite') });
    rawDatabase(ds).prepare("INSERT INTO projects (name, created_at) VALUES ('bench', 'now')").run();
    results.push(await measure('SQLite', new SqliteChunkIndex(rawDatabase(ds)), 1, pages));
    await ds.destroy();

    const pool = new pg.Pool({ connectionString: scratch.url, max: 4 });
    pool.on('error', () => undefined);
    try {
      const store = await openPostgresChunkStore(pool);
      vectors = store.vectorsAvailable;
      results.push(await measure('PostgreSQL', store, 1, pages, () => pool.query('VACUUM ANALYZE')));
    } finally {
      await pool.end();
    }
  } finally {
    await scratch.drop();
    rmSync(dir, { recursive: true, force: true });
  }

  const [sqlite, postgres] = results;
  const same = sqlite.lexical.tops.filter((t, i) => t === postgres.lexical.tops[i]).length;
  if (process.argv.includes('--json')) {
    console.log(
      JSON.stringify(results.map(({ lexical, ...r }) => ({ ...r, p50: lexical.p50, p99: lexical.p99 }))),
    );
    return;
  }
  console.log(
    `## Stores at ${sqlite.chunks} chunks (fastify-docs variants, ${QUESTIONS.length} questions)\n`,
  );
  console.log('| store | chunks | write (documents/s) | lexical p50 (ms) | lexical p99 (ms) | hybrid |');
  console.log('|---|---|---|---|---|---|');
  for (const r of results) {
    const hybrid = r.label === 'PostgreSQL' && !vectors ? 'n/a: no pgvector on this server' : 'not measured';
    console.log(
      `| ${r.label} | ${r.chunks} | ${r.docsPerSec.toFixed(0)} | ${r.lexical.p50.toFixed(1)} | ${r.lexical.p99.toFixed(1)} | ${hybrid} |`,
    );
  }
  console.log(
    `\nPostgreSQL / SQLite lexical p50: ${(postgres.lexical.p50 / sqlite.lexical.p50).toFixed(2)}×. ` +
      `Same top-10 sources on ${same} of ${QUESTIONS.length} questions.`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
