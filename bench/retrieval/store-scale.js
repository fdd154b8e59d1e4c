// Issue 16: the SQLite and the PostgreSQL store at about 100k chunks of real text. The fastify-docs
// pages (Guides and Reference) are written as many variants (each page's source gets a `-v<n>`
// suffix and its text a variant line, so no two chunks are byte-identical) through
// ChunkStore.replaceSources, 25 documents a call, until BENCH_STORE_CHUNKS (100,000) chunks; the
// write rate is reported as documents/s. Then every question of bench/retrieval (main and held-out)
// is searched once to warm up and once measured, topK 10: p50 and p99 per store and mode.
//
// Lexical: SQLite, and the machine's PostgreSQL (KBQA_BENCH_POSTGRES_URL, default
// postgres://postgres@127.0.0.1:5432/test; a scratch database there, dropped after), queried after
// VACUUM ANALYZE, the state autovacuum brings a table to shortly after a bulk load.
//
// Hybrid: no model weights are fetched, so every chunk gets the deterministic 384-dimension vector
// latency.js uses (synthetic-vectors.js: chunk id i gets vectorOf(i - 1)), and each question the
// vector of a point near SQLite's first lexical hit for it (queryVector), so the dense side agrees
// with the lexical side as a real embedder's would. SQLite does hybrid through its vector index
// (sqlite-vec). PostgreSQL does it with pgvector, which the machine's server lacks: PGlite with its
// `vector` extension, served over the wire protocol by pglite-socket in a child process
// (packages/store-postgres/test/pglite-server.js), so the ordinary store code and `pg` driver run.
// PGlite gets a copy of the SQLite database through `copySqliteToPostgres` (`kbqa store copy`):
// the same chunks with the same ids, tsvectors and postings computed by its SQL; then the same
// vectors through the store's `vectors.store`, with the HNSW index built once after them (the
// build time is reported) rather than grown one insert at a time. PGlite is a single-process
// WebAssembly build, so it is slower than a server: at 100k the copy, vectors and HNSW build took
// 5 min on a quiet 2-core machine, 10 on one half as fast, 21 min for the build alone under load
// (docs/postgres.md). BENCH_PGLITE_CHUNKS (default: the full size, as the target is at
// 100k; 30,000 takes a third of the time and stays above the 20,000 vectors from which dense search
// uses HNSW) sets its size, and SQLite's hybrid is also measured at that size when it is smaller
// than the full one.
// Recall@10 of each store's dense top-10 against exact cosine over every vector is reported.
//
// BENCH_TRACE_STATEMENTS=1 prints, after PGlite's hybrid passes, each SQL statement's count and
// mean time per search (the statements' round trips, not the store's CPU, were most of it).
//
// Usage: node bench/retrieval/store-scale.js [--json]
'use strict';
const { fork } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const net = require('node:net');
const { availableParallelism, loadavg, tmpdir } = require('node:os');
const path = require('node:path');
const { pg, scratchDatabase } = require('../postgres');

/** Statement timings while `statementTimes` is a Map (BENCH_TRACE_STATEMENTS=1), keyed by SQL text. */
let statementTimes;
if (process.env.BENCH_TRACE_STATEMENTS === '1') {
  for (const Queryable of [pg.Client, pg.Pool]) {
    const query = Queryable.prototype.query;
    Queryable.prototype.query = function timedQuery(...args) {
      const result = query.apply(this, args);
      // A pool calls its client with a callback (no promise): timed once, at the pool.
      if (!statementTimes || typeof result?.then !== 'function') return result;
      const sql = typeof args[0] === 'string' ? args[0] : (args[0]?.text ?? '?');
      const started = process.hrtime.bigint();
      return result.then((value) => {
        const entry = statementTimes?.get(sql) ?? { n: 0, ms: 0 };
        entry.n++;
        entry.ms += Number(process.hrtime.bigint() - started) / 1e6;
        statementTimes?.set(sql, entry);
        return value;
      });
    };
  }
}

/** Prints the statements timed since `statementTimes` was set, slowest in all first, and stops timing. */
function printStatementTimes(searches) {
  if (!statementTimes) return;
  process.stderr.write(`Statements during ${searches} searches (count, mean ms each, ms per search):\n`);
  for (const [sql, { n, ms }] of [...statementTimes].sort((a, b) => b[1].ms - a[1].ms)) {
    const text = sql.replace(/\s+/g, ' ').slice(0, 110);
    process.stderr.write(`  ${n}\t${(ms / n).toFixed(2)}\t${(ms / searches).toFixed(2)}\t${text}\n`);
  }
  statementTimes = undefined;
}
const { requireSharedCorpus, corpusPages } = require('../shared-corpus');
const { percentile, run } = require('../lib');
const { DIM, vectorOf, queryVector } = require('./synthetic-vectors');
const { MarkdownChunker } = require('../../packages/chunker/dist');
const { SqliteChunkIndex, openDataSource, rawDatabase } = require('../../packages/store-sqlite/dist');
const { copySqliteToPostgres, openPostgresChunkStore } = require('../../packages/store-postgres/dist');

const CORPUS = requireSharedCorpus();
const QUESTIONS = [...require('./questions.json'), ...require('./questions-holdout.json')].map((x) => x.q);
const CHUNKS_WANTED = Number(process.env.BENCH_STORE_CHUNKS || 100000);
const PGLITE_CHUNKS = Math.min(CHUNKS_WANTED, Number(process.env.BENCH_PGLITE_CHUNKS || CHUNKS_WANTED));
const EMBEDDER = `bench-synthetic-${DIM}`;
const PGLITE_SERVER = path.join(
  __dirname,
  '..',
  '..',
  'packages',
  'store-postgres',
  'test',
  'pglite-server.js',
);
const loads = [];
let highestLoad = 0;
const noteLoad = (when) => {
  highestLoad = Math.max(highestLoad, loadavg()[0]);
  loads.push(
    `${when} ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
};

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

async function fill(store, projectId, pages, chunksWanted) {
  const perCopy = variantInputs(pages, 1, projectId).reduce((n, i) => n + i.documents[0].chunks.length, 0);
  const copies = Math.max(1, Math.round(chunksWanted / perCopy));
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

/** p50/p99 of the second of two passes over the questions; `vectors[i]` goes with question i (hybrid). */
async function latency(store, projectId, mode, vectors) {
  const run = async () => {
    const times = [];
    const tops = [];
    const firsts = [];
    for (const [i, q] of QUESTIONS.entries()) {
      const query = { projectId, text: q, topK: 10, mode, vector: vectors?.[i] };
      const t = process.hrtime.bigint();
      const hits = await store.search(query);
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
      tops.push(hits.map((h) => h.source).join(' '));
      firsts.push(hits[0]?.chunkId);
    }
    return { times, tops, firsts };
  };
  await run();
  const { times, tops, firsts } = await run();
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), tops, firsts };
}

/** Chunk ids of a store, ascending, in batches of `size`, each with its vector. */
async function* vectorBatches(ids, size = 1000) {
  for (let i = 0; i < ids.length; i += size)
    yield ids.slice(i, i + size).map((chunkId) => ({ chunkId, vector: vectorOf(chunkId - 1) }));
}

/** Exact top-10 chunk ids by cosine (the vectors are normalized: dot products) for each query. */
function exactTop10(ids, queries) {
  const matrix = new Float32Array(ids.length * DIM);
  ids.forEach((id, r) => matrix.set(vectorOf(id - 1), r * DIM));
  return queries.map((q) => {
    const best = [];
    for (let r = 0; r < ids.length; r++) {
      let dot = 0;
      const at = r * DIM;
      for (let d = 0; d < DIM; d++) dot += matrix[at + d] * q[d];
      if (best.length < 10 || dot > best[best.length - 1].dot) {
        best.push({ id: ids[r], dot });
        best.sort((a, b) => b.dot - a.dot);
        if (best.length > 10) best.pop();
      }
    }
    return best.map((b) => b.id);
  });
}

async function recallAt10(nearest, exact, queries) {
  let found = 0;
  for (const [i, vector] of queries.entries()) {
    const hits = await nearest({ projectId: 1, vector, k: 10 });
    const want = new Set(exact[i]);
    found += hits.filter((h) => want.has(h.chunkId)).length;
  }
  return found / (10 * queries.length);
}

/**
 * A SQLite store of `chunks` chunks: written, queried lexically, then given every chunk's vector
 * and queried hybrid, each question's vector near its own first lexical hit. `beforeVectors` gets
 * the database and its chunk ids in between (the copy into PGlite: lexical-only, so PGlite gets the
 * vectors its own way).
 */
async function sqliteStore(dir, pages, chunks, beforeVectors) {
  const ds = await openDataSource({ file: path.join(dir, `kbqa-${chunks}.sqlite`) });
  const db = rawDatabase(ds);
  db.prepare("INSERT INTO projects (name, created_at) VALUES ('bench', 'now')").run();
  const store = new SqliteChunkIndex(db);
  process.stderr.write(`SQLite (${chunks}): writing\n`);
  const written = await fill(store, 1, pages, chunks);
  process.stderr.write(
    `SQLite: ${written.chunks} chunks, ${written.docsPerSec.toFixed(0)} documents/s; querying\n`,
  );
  noteLoad(`SQLite ${written.chunks}:`);
  const lexical = await latency(store, 1, 'lexical');
  const vectors = lexical.firsts.map((id, i) => queryVector(id ? id - 1 : i));
  const ids = db.prepare('SELECT id FROM chunks ORDER BY id').pluck().all();
  await beforeVectors?.(db, ids);
  store.vectors.attach(EMBEDDER, DIM);
  for await (const batch of vectorBatches(ids)) store.vectors.store(batch);
  const hybrid = await latency(store, 1, 'hybrid', vectors);
  const exact = exactTop10(ids, vectors);
  const recall = await recallAt10((q) => Promise.resolve(store.vectors.nearest(q)), exact, vectors);
  return { label: 'SQLite', ds, ...written, lexical, hybrid, recall, vectors, exact };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

/**
 * PGlite with pgvector on a free port of 127.0.0.1, in memory (on disk it mostly waited on the
 * file system, 3-4 times slower).
 */
async function startPglite() {
  const port = await freePort();
  const child = fork(PGLITE_SERVER, [String(port), '1'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`PGlite exited with ${code}`)));
    child.on('message', (/** @type {any} */ m) => m?.ready && resolve());
  });
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', resolve);
        child.send('stop');
      }),
  };
}

/** PGlite holding a copy of a SQLite database's chunks (no vectors yet), timed. */
async function pgliteCopy(reader, ids) {
  const server = await startPglite();
  const pool = new pg.Pool({ connectionString: server.url, max: 1 });
  pool.on('error', () => undefined);
  process.stderr.write(`PGlite: copying ${ids.length} chunks from SQLite\n`);
  const t = Date.now();
  try {
    await copySqliteToPostgres(reader, pool);
  } catch (e) {
    await pool.end();
    await server.stop();
    throw e;
  }
  return { server, pool, ids, copySeconds: (Date.now() - t) / 1000 };
}

/**
 * The copied chunks given the same vectors as SQLite through the store, the HNSW index built, then
 * lexical and hybrid measured with SQLite's query vectors.
 */
async function pgliteStore(copy, sqlite) {
  const { pool, server, ids, copySeconds } = copy;
  try {
    const store = await openPostgresChunkStore(pool);
    if (!store.vectorsAvailable) throw new Error('PGlite has no pgvector');
    await store.vectors.attach(EMBEDDER, DIM);
    // Built once after the vectors, as after a bulk load: growing it one insert at a time is slower.
    await pool.query('DROP INDEX chunk_vectors_hnsw');
    process.stderr.write(`PGlite: copied in ${copySeconds.toFixed(0)} s; storing vectors\n`);
    let t = Date.now();
    for await (const batch of vectorBatches(ids)) await store.vectors.store(batch);
    const storeSeconds = (Date.now() - t) / 1000;
    process.stderr.write(`PGlite: vectors stored in ${storeSeconds.toFixed(0)} s; building HNSW\n`);
    // The graph must fit in maintenance_work_mem or the build slows several times over.
    await pool.query("SET maintenance_work_mem = '1GB'");
    t = Date.now();
    await pool.query(
      'CREATE INDEX chunk_vectors_hnsw ON chunk_vectors USING hnsw (embedding vector_cosine_ops)',
    );
    const hnswSeconds = (Date.now() - t) / 1000;
    await pool.query('RESET maintenance_work_mem');
    await pool.query('VACUUM ANALYZE');
    process.stderr.write(`PGlite: HNSW built in ${hnswSeconds.toFixed(0)} s; querying\n`);
    const chunks = await store.countChunks(1);
    noteLoad(`PGlite ${chunks}:`);
    const lexical = await latency(store, 1, 'lexical');
    if (process.env.BENCH_TRACE_STATEMENTS === '1') statementTimes = new Map();
    const hybrid = await latency(store, 1, 'hybrid', sqlite.vectors);
    printStatementTimes(2 * QUESTIONS.length);
    const recall = await recallAt10((q) => store.vectors.nearest(q), sqlite.exact, sqlite.vectors);
    return {
      label: 'PostgreSQL (PGlite + pgvector)',
      chunks,
      copySeconds,
      storeSeconds,
      hnswSeconds,
      lexical,
      hybrid,
      recall,
    };
  } finally {
    await pool.end();
    await server.stop();
  }
}

async function serverStore(pages) {
  const scratch = await scratchDatabase('kbqa_bench_scale');
  try {
    const pool = new pg.Pool({ connectionString: scratch.url, max: 4 });
    pool.on('error', () => undefined);
    try {
      const store = await openPostgresChunkStore(pool);
      process.stderr.write('PostgreSQL: writing\n');
      const written = await fill(store, 1, pages, CHUNKS_WANTED);
      // What autovacuum does within a minute or so of a bulk load (statistics, visibility map for
      // index-only scans); measured after it, as a service that has been running would be.
      await pool.query('VACUUM ANALYZE');
      process.stderr.write(
        `PostgreSQL: ${written.chunks} chunks, ${written.docsPerSec.toFixed(0)} documents/s; querying\n`,
      );
      noteLoad(`PostgreSQL ${written.chunks}:`);
      const lexical = await latency(store, 1, 'lexical');
      return { label: 'PostgreSQL (server)', vectors: store.vectorsAvailable, ...written, lexical };
    } finally {
      await pool.end();
    }
  } finally {
    await scratch.drop();
  }
}

const ms = (x) => x.toFixed(1);
const same = (a, b) => a.tops.filter((t, i) => t === b.tops[i]).length;

async function main() {
  const pages = corpusPages(CORPUS);
  const dir = mkdtempSync(path.join(tmpdir(), 'kbqa-bench-scale-'));
  const started = Date.now();
  // The three stores' rows share no declared shape: each store measures what it can.
  /** @type {any} */
  let sqlite;
  /** @type {any} */
  let small;
  /** @type {any} */
  let pglite;
  /** @type {any} */
  let server;
  /** @type {any} */
  let copy;
  const copyInto = async (reader, ids) => {
    copy = await pgliteCopy(reader, ids);
  };
  try {
    // PGlite holds a copy of the SQLite database of its size: the full one, or a smaller one
    // written the same way (the first variants: the same chunks, ids and vectors), with SQLite's
    // hybrid measured on it too.
    const smaller = PGLITE_CHUNKS < CHUNKS_WANTED;
    sqlite = await sqliteStore(dir, pages, CHUNKS_WANTED, smaller ? undefined : copyInto);
    small = smaller ? await sqliteStore(dir, pages, PGLITE_CHUNKS, copyInto) : sqlite;
    pglite = await pgliteStore(copy, small);
    copy = undefined;
    server = await serverStore(pages);
  } finally {
    if (copy) {
      await copy.pool.end();
      await copy.server.stop();
    }
    await sqlite?.ds.destroy();
    if (small && small !== sqlite) await small.ds.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
  noteLoad('end:');
  const minutes = (Date.now() - started) / 60000;

  if (process.argv.includes('--json')) {
    const row = (r, mode) => r[mode] && { p50: r[mode].p50, p99: r[mode].p99 };
    console.log(
      JSON.stringify({
        rows: [sqlite, ...(small !== sqlite ? [small] : []), pglite, server].map((r) => ({
          store: r.label,
          chunks: r.chunks,
          docsPerSec: r.docsPerSec,
          lexical: row(r, 'lexical'),
          hybrid: row(r, 'hybrid'),
          recall: r.recall,
        })),
        pglite: {
          copySeconds: pglite.copySeconds,
          storeSeconds: pglite.storeSeconds,
          hnswSeconds: pglite.hnswSeconds,
        },
        loads,
        minutes,
      }),
    );
    return;
  }
  console.log(
    `## Stores at ${sqlite.chunks} chunks (fastify-docs variants, ${QUESTIONS.length} questions)\n`,
  );
  console.log(
    `Lexical and hybrid, topK 10, second of two passes. Hybrid vectors: deterministic ${DIM}-dimension synthetic vectors (bench/retrieval/synthetic-vectors.js), the same floats in both stores; each question's vector lies near SQLite's first lexical hit for it. PostgreSQL with pgvector is PGlite (WebAssembly, one process) through pglite-socket and the ordinary \`pg\` driver; the machine's PostgreSQL 15 has no pgvector.\n`,
  );
  console.log(
    '| store | chunks | write (documents/s) | lexical p50 (ms) | lexical p99 (ms) | hybrid p50 (ms) | hybrid p99 (ms) | dense recall@10 |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  const line = (r, write) =>
    console.log(
      `| ${r.label} | ${r.chunks} | ${write} | ${ms(r.lexical.p50)} | ${ms(r.lexical.p99)} | ${r.hybrid ? ms(r.hybrid.p50) : 'n/a: no pgvector on this server'} | ${r.hybrid ? ms(r.hybrid.p99) : 'n/a'} | ${r.recall === undefined ? 'n/a' : r.recall.toFixed(3)} |`,
    );
  line(sqlite, sqlite.docsPerSec.toFixed(0));
  line(server, server.docsPerSec.toFixed(0));
  if (small !== sqlite) line(small, small.docsPerSec.toFixed(0));
  line(pglite, `copied in ${pglite.copySeconds.toFixed(0)} s`);
  console.log(
    `\nPGlite (${pglite.chunks} chunks): \`kbqa store copy\` of the SQLite file ${pglite.copySeconds.toFixed(0)} s, ` +
      `vectors stored ${pglite.storeSeconds.toFixed(0)} s, HNSW index built (m 16, ef_construction 64, maintenance_work_mem 1 GB) ${pglite.hnswSeconds.toFixed(0)} s.`,
  );
  console.log(
    `\nLexical p50, PostgreSQL server / SQLite at ${sqlite.chunks}: ${(server.lexical.p50 / sqlite.lexical.p50).toFixed(2)}× ` +
      `(same top-10 sources on ${same(sqlite.lexical, server.lexical)} of ${QUESTIONS.length} questions). ` +
      `At ${pglite.chunks}, PGlite / SQLite: lexical p50 ${(pglite.lexical.p50 / small.lexical.p50).toFixed(2)}×, ` +
      `hybrid p50 ${(pglite.hybrid.p50 / small.hybrid.p50).toFixed(2)}× (same top-10 sources: lexical ${same(small.lexical, pglite.lexical)}, ` +
      `hybrid ${same(small.hybrid, pglite.hybrid)} of ${QUESTIONS.length}). Dense recall@10: each store's dense top-10 against exact cosine over every vector.`,
  );
  console.log(
    `\nLoad average (1, 5, 15 min) when each store was queried: ${loads.join('; ')}. Whole run ${minutes.toFixed(1)} min.`,
  );
  if (highestLoad > availableParallelism()) {
    console.log(
      `\nOther work shared the machine (1-minute load average up to ${highestLoad.toFixed(1)} on ${availableParallelism()} cores): ` +
        'these timings are distorted; re-run on a quiet machine before comparing the stores.',
    );
  }
}

run(main);
