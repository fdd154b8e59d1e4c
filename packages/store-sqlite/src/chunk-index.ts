import { writeTransaction } from './write-transaction';
import type BetterSqlite3 from 'better-sqlite3';
import type {
  ChunkStore,
  IndexedSource,
  PageVersion,
  ReplaceSourceInput,
  ReplaceSourceResult,
  SearchHit,
  SearchQuery,
  SourceKind,
  SourceRecord,
} from '@kbqa/core';
import { sha256Hex } from '@kbqa/core';
import { ftsInserter, projectMatch, textMatch } from './fts-document';
import { FtsTotals } from './fts-totals';
import { HIT_COLUMNS, type HitRow, toHit } from './hit-row';
import { coverageOf, matchTerms, prunedMatchExpression, queryStems, stemsFound } from './fts-query';
import { withOpeningSlot } from './section-openings';
import { metadataWhereSql } from './metadata-filter';
import { MetadataValues } from './metadata-values';
import { denseSearch, hybridSearch, type HybridDeps } from './hybrid';
import { SqliteVectorIndex } from './vector-index';
import {
  DEFAULT_TERM_CACHE_ENTRIES,
  maxId,
  ScoreAccumulator,
  scoreOf,
  TermScoreCache,
  type TermScores,
  termScores,
  topIds,
} from './term-scores';
import { nowTimestamp, withUtcOffset } from './time';

export type { IndexedDocument, ReplaceSourceInput, ReplaceSourceResult, SourceRecord } from '@kbqa/core';

/**
 * A project holding at least this share of the index is searched unscoped, its rows picked after
 * (see rankedProjectRows); UNSCOPED_SLACK more rows are read to absorb other projects' rows.
 */
const UNSCOPED_FROM_SHARE = 0.5;
const UNSCOPED_SLACK = 20;
/** Index size from which common query terms stop widening the candidate set. */
const PRUNE_FROM_ROWS = 20_000;
/**
 * Index size up to which lexical search sums kept term score lists (see term-scores.ts). A list's
 * first read scores every chunk holding the word: on 1M chunks a word on half of them took
 * seconds, and a question made of words not yet kept measured p99 3.7 s (bench/retrieval/latency.js),
 * where FTS5's pruned match (below) takes 30 ms. Past this size FTS5 ranks, as before.
 */
const SUMMED_UP_TO_ROWS = 250_000;
/**
 * How long the index must go unchanged before a search reloads term score lists the last write
 * emptied. A list's first read scores every chunk holding its word (a chat's words cost about
 * 300 ms on 105k chunks), and during an ingestion every commit empties them again: meanwhile FTS5
 * ranks, as past SUMMED_UP_TO_ROWS (bench/chat.js, chat during a 10,000-document ingestion).
 */
const LISTS_AFTER_QUIET_MS = 2_000;
/** A term in at least this share of chunks is "common" (BM25 gives it little weight anyway). */
const COMMON_TERM_SHARE = 0.1;
const MAX_CACHED_IDFS = 10_000;

/** BM25 column weights: title, heading path, body prose, body code (see FTS_COLUMNS). */
export const FTS_WEIGHTS = [0, 4.0, 2.5, 1.0, 0.5] as const;
/**
 * Lexical candidates re-ranked by relevance (which weighs query-term coverage), as a multiple of
 * topK: coverage only reorders passages BM25 already ranks near the top, so a small pool is enough.
 */
const RERANK_POOL = 2;
const MAX_RERANK_POOL = 100;
/** Score factor of a passage that covers none of the query terms in ranking; all of them gives 1. */
const UNCOVERED_FACTOR = 0.75;
/** Share of its BM25 a context term (SearchQuery.context) adds, and of its weight in coverage. */
export const CONTEXT_WEIGHT = 0.5;
/**
 * Least weight of a query word in coverage. Its idf, ln(1 + (N - n + 0.5) / (n + 0.5)), falls to
 * 0 for a word on every passage, so on a four-page site the words of "How do I install Acme?"
 * would weigh nothing and a right answer would score near 0; with the floor they still count,
 * a third as much as a word on one passage in ten.
 */
const IDF_FLOOR = 0.8;
/** BM25 at which its half of the relevance reaches one half (see {@link lexicalRelevance}). */
const BM25_HALF = 8;
/** Share of the relevance that comes from coverage alone; the rest scales with BM25. */
const COVERAGE_BASE = 0.5;

/** How far above its page's best passage a topic page's opening passage ranks (SearchQuery.topic). */
const TOPIC_LEAD_MARGIN = 0.01;

/** What a lexical search matches and how it weighs each query stem. */
interface LexicalPlan {
  /** The quoted terms of the question (matchTerms). */
  mainTerms: string[];
  /** The quoted terms of the context that the question does not have (none without context). */
  contextTerms: string[];
  /** Relevance coverage weight per stem: idf (at least IDF_FLOOR), context stems scaled down. */
  weights: Map<string, number>;
  /** Ranking coverage weight per stem: 1, context stems scaled down. */
  shares: Map<string, number>;
}

export interface SqliteChunkIndexOptions {
  /**
   * Bound of the in-memory term score lists lexical search sums instead of having FTS5 score
   * every matching row (see term-scores.ts), in chunk entries of 12 bytes; 0 turns them off.
   */
  termCacheEntries?: number;
  /**
   * Told of each term score list this index loaded (in shared memory), so that other indexes on
   * the same database, on other threads, take it with {@link SqliteChunkIndex.adoptTermList}.
   */
  onTermList?: (key: string, generation: number, list: TermScores) => void;
}

/**
 * The chunk index of one SQLite database: chunk rows, their FTS5 entries and (when an embedder
 * is configured) their vectors, always changed together in one transaction.
 */
export class SqliteChunkIndex implements ChunkStore {
  private readonly stmt: ReturnType<SqliteChunkIndex['prepare']>;
  /** The vectors of this database's chunks (embedder binding, pending chunks, kNN). */
  readonly vectors: SqliteVectorIndex;
  private readonly hybridDeps: HybridDeps;
  private readonly termCache: TermScoreCache | undefined;
  private readonly accumulator = new ScoreAccumulator();
  private readonly contextAccumulator = new ScoreAccumulator();
  private readonly ftsTotals: FtsTotals;
  private readonly metadata: MetadataValues;

  constructor(
    private readonly db: BetterSqlite3.Database,
    vectors?: SqliteVectorIndex,
    options: SqliteChunkIndexOptions = {},
  ) {
    this.stmt = this.prepare();
    this.ftsTotals = new FtsTotals(db);
    this.metadata = new MetadataValues(db);
    this.vectors = vectors ?? new SqliteVectorIndex(db);
    const entries = options.termCacheEntries ?? DEFAULT_TERM_CACHE_ENTRIES;
    this.termCache = entries > 0 ? new TermScoreCache(entries, options.onTermList) : undefined;
    this.hybridDeps = {
      db,
      vectors: this.vectors,
      lexical: (q) => this.rankLexical(q),
      lexicalSearch: (q) => this.searchLexical(q),
      lexicalScores: (q, chunkIds) => this.lexicalScores(q, chunkIds),
    };
  }

  private prepare() {
    const db = this.db;
    return {
      // The page's first content chunks; chunks_document narrows it to the page's few rows.
      leadChunks: db.prepare<[number, number], HitRow>(
        `SELECT ${HIT_COLUMNS} FROM chunks c JOIN sources s ON s.id = c.source_id
         WHERE c.document_id = ? AND c.project_id = ? AND c.kind = 'content' ORDER BY c.ordinal LIMIT ${LEAD_CANDIDATES}`,
      ),
      findSource: db.prepare<[number, string], { id: number }>(
        'SELECT id FROM sources WHERE project_id = ? AND source = ?',
      ),
      // Only on a miss of findSource (a rare path), so no index on link is kept for it.
      findSourceByLink: db.prepare<[number, string], { id: number }>(
        'SELECT source_id AS id FROM chunks WHERE project_id = ? AND link = ? LIMIT 1',
      ),
      insertSource: db.prepare(
        `INSERT INTO sources (project_id, source, kind, date_added, updated_at, index_id, version, content_hash)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      touchSource: db.prepare(
        'UPDATE sources SET kind = ?, updated_at = ?, index_id = ?, version = ?, content_hash = ? WHERE id = ?',
      ),
      keepSource: db.prepare('UPDATE sources SET index_id = ?, version = coalesce(?, version) WHERE id = ?'),
      indexSources: db.prepare<
        [number, number],
        { id: number; source: string; content_hash: string | null; version: string | null }
      >(
        'SELECT id, source, content_hash, version FROM sources WHERE project_id = ? AND index_id = ? ORDER BY id',
      ),
      sourceOfProject: db.prepare<[number, number], { id: number }>(
        'SELECT id FROM sources WHERE id = ? AND project_id = ?',
      ),
      countIndexSources: db.prepare<[number], { index_id: number; n: number }>(
        'SELECT index_id, count(*) AS n FROM sources WHERE project_id = ? AND index_id IS NOT NULL GROUP BY index_id',
      ),
      deleteFtsOfSource: db.prepare(
        'DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE source_id = ?)',
      ),
      ftsSizesOfSource: db.prepare<[number], { sz: Buffer }>(
        'SELECT d.sz FROM chunks_fts_docsize d JOIN chunks c ON c.id = d.id WHERE c.source_id = ?',
      ),
      deleteChunksOfSource: db.prepare('DELETE FROM chunks WHERE source_id = ?'),
      deleteDocumentsOfSource: db.prepare('DELETE FROM documents WHERE source_id = ?'),
      deleteSourceRow: db.prepare('DELETE FROM sources WHERE id = ?'),
      insertDocument: db.prepare(
        `INSERT INTO documents (project_id, source_id, title, link, metadata, content_hash, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertChunk: db.prepare(
        `INSERT INTO chunks (project_id, source_id, document_id, ordinal, kind, title, heading_path, link, content, content_hash)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertFts: ftsInserter(db),
      mergeStep: db.prepare<[number]>(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES('merge', ?)`),
      listSources: db.prepare<[number], { id: number; source: string; kind: SourceKind; date_added: string }>(
        'SELECT id, source, kind, date_added FROM sources WHERE project_id = ? ORDER BY id',
      ),
      sourcesExcept: db.prepare<[number, string], { id: number }>(
        'SELECT id FROM sources WHERE project_id = ? AND kind <> ?',
      ),
      countChunks: db.prepare<[number], { n: number }>(
        'SELECT count(*) AS n FROM chunks WHERE project_id = ?',
      ),
      countAllChunks: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM chunks'),
      // Unscoped MATCH, the project checked per row: intersecting with the project token's posting
      // list (every chunk of the project) would read all of it for a common word.
      anyMatch: db.prepare<[string, number], { one: number }>(
        `SELECT 1 AS one FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
         WHERE chunks_fts MATCH ? AND c.project_id = ? LIMIT 1`,
      ),
      generation: db.prepare<[], { n: number }>('SELECT n FROM chunk_generation WHERE id = 1'),
      // Arrays, not row objects: a common word's list has tens of thousands of rows.
      termRows: db
        .prepare<[string], [number, number]>(
          `SELECT rowid, -bm25(chunks_fts, ${FTS_WEIGHTS.join(', ')}) FROM chunks_fts WHERE chunks_fts MATCH ?`,
        )
        .raw(),
      hitRows: db.prepare<[string], HitRow>(
        `SELECT ${HIT_COLUMNS} FROM chunks c JOIN sources s ON s.id = c.source_id
         WHERE c.id IN (SELECT value FROM json_each(?))`,
      ),
      // Two seeks in chunks_project (`<>` would scan it).
      otherProjectChunk: db.prepare<[number, number], { one: number }>(
        `SELECT 1 AS one WHERE EXISTS (SELECT 1 FROM chunks WHERE project_id < ?)
           OR EXISTS (SELECT 1 FROM chunks WHERE project_id > ?)`,
      ),
    };
  }

  /**
   * Replaces everything a source holds with the given documents, in one transaction, so a
   * re-run of an interrupted task never leaves duplicate chunks behind.
   */
  replaceSource(input: ReplaceSourceInput): ReplaceSourceResult {
    return writeTransaction(this.db, (): ReplaceSourceResult => {
      const now = nowTimestamp();
      const existing = this.stmt.findSource.get(input.projectId, input.source);
      const version = input.version ? JSON.stringify(input.version) : null;
      const hash = input.contentHash ?? null;
      let sourceId: number;
      // Vectors of chunks whose embedded text is unchanged are carried over, not re-embedded.
      let carried = new Map<string, Buffer>();
      if (existing) {
        sourceId = existing.id;
        carried = this.vectors.vectorsBySourceHash(sourceId);
        this.clearSource(sourceId);
        this.stmt.touchSource.run(input.kind, now, input.indexId ?? null, version, hash, sourceId);
      } else {
        sourceId = Number(
          this.stmt.insertSource.run(
            input.projectId,
            input.source,
            input.kind,
            now,
            now,
            input.indexId ?? null,
            version,
            hash,
          ).lastInsertRowid,
        );
      }
      const chunkIds: number[] = [];
      for (const { document, chunks } of input.documents) {
        const text = document.parts ? document.parts.map((p) => p.text).join('\n') : document.content;
        const documentId = Number(
          this.stmt.insertDocument.run(
            input.projectId,
            sourceId,
            document.title ?? chunks[0]?.title ?? input.source,
            document.link ?? input.source,
            JSON.stringify(document.metadata ?? {}),
            sha256Hex(text),
            now,
          ).lastInsertRowid,
        );
        for (const chunk of chunks) {
          const headings = chunk.headingPath.join(' > ');
          const chunkId = Number(
            this.stmt.insertChunk.run(
              input.projectId,
              sourceId,
              documentId,
              chunk.ordinal,
              chunk.kind,
              chunk.title,
              JSON.stringify(chunk.headingPath),
              chunk.link,
              chunk.content,
              chunk.contentHash,
            ).lastInsertRowid,
          );
          this.stmt.insertFts.run(chunkId, input.projectId, chunk.title, headings, chunk.content);
          const vector = carried.get(chunk.contentHash);
          if (vector) this.vectors.restore(chunkId, input.projectId, vector);
          chunkIds.push(chunkId);
        }
      }
      return { sourceId, chunkIds };
    });
  }

  /**
   * Does up to `pages` pages of FTS5 segment merging. Automatic merging is off (it ran inside
   * write transactions and sometimes took over 100 ms), so writers call this between writes: a
   * step is short, and enough steps keep the number of segments, and so query cost, down.
   * Measured on 100k chunks with 25-document writes: write p99 62 -> 16 ms, max 111 -> 18 ms,
   * three 100-page steps after each write, each step at most 15 ms.
   */
  mergeStep(pages = 100): void {
    this.stmt.mergeStep.run(pages);
  }

  /** {@link ChunkStore.maintain}: one merge step, and the vector change log pruned. */
  maintain(): void {
    this.mergeStep(100);
    this.vectors.pruneChanges();
  }

  /**
   * Replaces several sources in one transaction: FTS5 flushes a segment per commit, so one
   * commit per source would leave many small segments to merge. Each source is still replaced
   * whole, so a crash mid-task never leaves half a source or a duplicate.
   */
  replaceSources(inputs: ReplaceSourceInput[]): ReplaceSourceResult[] {
    return writeTransaction(this.db, () => inputs.map((input) => this.replaceSource(input)));
  }

  /**
   * Removes one source with its documents, chunks and index rows; returns how many sources went.
   * `source` may also be a link that chat cited from it (a video moment, a heading anchor): the
   * link names its source, so a reader can delete what an answer cited.
   */
  deleteSource(projectId: number, source: string): number {
    return writeTransaction(this.db, () => {
      const row =
        this.stmt.findSource.get(projectId, source) ?? this.stmt.findSourceByLink.get(projectId, source);
      if (!row) return 0;
      this.clearSource(row.id);
      this.stmt.deleteSourceRow.run(row.id);
      return 1;
    });
  }

  /** Removes every source of a project except those added by the teaching feature. */
  deleteAllSources(projectId: number): number {
    return writeTransaction(this.db, () => {
      const rows = this.stmt.sourcesExcept.all(projectId, 'teach');
      for (const row of rows) {
        this.clearSource(row.id);
        this.stmt.deleteSourceRow.run(row.id);
      }
      return rows.length;
    });
  }

  listSources(projectId: number): SourceRecord[] {
    return this.stmt.listSources.all(projectId).map((r) => ({
      id: r.id,
      source: r.source,
      kind: r.kind,
      dateAdded: withUtcOffset(r.date_added),
    }));
  }

  indexSources(projectId: number, indexId: number): IndexedSource[] {
    return this.stmt.indexSources.all(projectId, indexId).map((r) => ({
      id: r.id,
      source: r.source,
      contentHash: r.content_hash,
      version: r.version ? (JSON.parse(r.version) as PageVersion) : {},
    }));
  }

  keepSource(sourceId: number, indexId: number, version: PageVersion | undefined): void {
    writeTransaction(this.db, () => {
      this.stmt.keepSource.run(indexId, version ? JSON.stringify(version) : null, sourceId);
    });
  }

  deleteSourcesById(projectId: number, sourceIds: number[]): number {
    return writeTransaction(this.db, () => {
      let removed = 0;
      for (const id of sourceIds) {
        if (!this.stmt.sourceOfProject.get(id, projectId)) continue;
        this.clearSource(id);
        this.stmt.deleteSourceRow.run(id);
        removed += 1;
      }
      return removed;
    });
  }

  countIndexSources(projectId: number): Map<number, number> {
    return new Map(this.stmt.countIndexSources.all(projectId).map((r) => [r.index_id, r.n]));
  }

  countChunks(projectId: number): number {
    return this.stmt.countChunks.get(projectId)?.n ?? 0;
  }

  metadataValues(projectId: number, field: string, limit: number): Array<string | number> {
    return this.metadata.values(projectId, field, limit);
  }

  documentsMetadataField(
    projectId: number,
    documentIds: number[],
    field: string,
  ): Map<number, string | number> {
    return this.metadata.ofDocuments(projectId, documentIds, field);
  }

  /**
   * One FTS5 lookup per word, stopped at the first chunk of the project: immediate for a word no
   * chunk has and for a common one (its first posting is usually the project's); a word only
   * other projects use walks its own postings.
   */
  absentWords(projectId: number, words: string[]): string[] {
    return words.filter((word) => {
      const term = word
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, ' ')
        .trim();
      if (!term) return false;
      return this.stmt.anyMatch.get(textMatch(`"${term}"`), projectId) === undefined;
    });
  }

  /** One entry point for every mode; metadata filters apply inside each search, per project. */
  search(query: SearchQuery): Promise<SearchHit[]> {
    try {
      switch (query.mode) {
        case 'lexical':
          return Promise.resolve(this.searchLexical(query));
        case 'dense':
          return Promise.resolve(denseSearch(this.hybridDeps, query));
        case 'hybrid':
          return Promise.resolve(hybridSearch(this.hybridDeps, query));
      }
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /**
   * Lexical search: BM25 over title, heading path, body prose and body code, scaled down for
   * passages that cover few of the query terms (see termCoverage), ranks the passages. Each gets
   * the relevance {@link lexicalRelevance} (how much of the question it holds, each word by its
   * rarity, with its BM25), capped by the relevance of the passages ranked above it so scores
   * never rise down the list. Context terms (SearchQuery.context) add {@link CONTEXT_WEIGHT} of
   * their BM25 and coverage weight to passages matching the question's own terms, which stay
   * dominant.
   */
  searchLexical(query: SearchQuery): SearchHit[] {
    let cap = 1;
    return this.rankLexical(query).map(({ rankRelevance: _rank, ...hit }) => {
      cap = Math.min(cap, hit.score);
      return { ...hit, score: cap };
    });
  }

  /**
   * The lexical candidates of a query in rank order, each with its own relevance (not capped),
   * which hybrid fusion combines with the dense similarity.
   */
  rankLexical(query: SearchQuery): LexicalHit[] {
    // One snapshot for the project check of `scoped` and the queries it shapes.
    return this.readSnapshot(() => this.rankLexicalNow(query));
  }

  private rankLexicalNow(query: SearchQuery): LexicalHit[] {
    const plan = this.lexicalPlan(query);
    if (!plan) return [];
    const filter = metadataWhereSql(query.filters ?? [], 'd.metadata');
    const pool = Math.max(query.topK, Math.min(query.topK * RERANK_POOL, MAX_RERANK_POOL));
    // Metadata filters need the documents joined in SQL: FTS5 ranks those queries itself.
    const rows =
      this.summing() && !filter.sql
        ? this.summedCandidates(query.projectId, plan, pool)
        : this.ftsCandidates(query.projectId, plan, filter, pool);
    const ranked = [...rows.values()]
      .map((r) => {
        const headingPath = JSON.parse(r.heading_path) as string[];
        const passage = `${r.title}\n${headingPath.join('\n')}\n${r.content}`;
        // Shares and weights have the same stems: the passage is read once for both.
        const found = stemsFound(plan.weights, passage);
        const rank = r.raw * (UNCOVERED_FACTOR + (1 - UNCOVERED_FACTOR) * coverageOf(plan.shares, found));
        const hit = toHit(r, lexicalRelevance(r.raw, coverageOf(plan.weights, found)), headingPath);
        return { hit, rank };
      })
      .sort((a, b) => b.rank - a.rank || a.hit.chunkId - b.hit.chunkId);
    if (query.topic) this.withTopicLeads(query.projectId, query.topic, plan, ranked);
    ranked.sort((a, b) => b.rank - a.rank || a.hit.chunkId - b.hit.chunkId);
    // A definition's search leads with its topic's page (SearchQuery.topic): no opening is given a place.
    return withOpeningSlot(ranked, query.topK, query.topic ? new Map() : plan.shares).map((r) => ({
      ...r.hit,
      rankRelevance: rankRelevance(r.rank),
    }));
  }

  /**
   * The lexical candidates by FTS5's own ranking: the question's best `pool` rows and, with a
   * context, the best `pool` rows holding both the question's and the context's words, each with
   * its raw BM25 (the context's share added).
   */
  private ftsCandidates(
    projectId: number,
    plan: LexicalPlan,
    filter: { sql: string; params: unknown[] },
    pool: number,
  ): Map<number, HitRow & { raw: number }> {
    const rows = new Map<number, HitRow & { raw: number }>();
    const main = this.matchExpression(plan.mainTerms);
    for (const r of this.rankedProjectRows(projectId, main, filter, pool)) rows.set(r.id, r);
    if (plan.contextTerms.length > 0) {
      const context = this.matchExpression(plan.contextTerms);
      // Passages holding both the question's and the topic's words, which the question's
      // words alone may rank below the pool (a follow-up's "origin" is on many pages).
      const both = `(${main}) AND (${context})`;
      const extra = this.rankedRows(this.scoped(projectId, both), filter, pool).filter(
        (r) => !rows.has(r.id),
      );
      const mainRaw = this.rawScores(
        projectId,
        main,
        extra.map((r) => r.id),
      );
      for (const r of extra) rows.set(r.id, { ...r, raw: mainRaw.get(r.id) ?? 0 });
      const contextRaw = this.rawScores(projectId, context, [...rows.keys()]);
      for (const r of rows.values()) r.raw += CONTEXT_WEIGHT * (contextRaw.get(r.id) ?? 0);
    }
    return rows;
  }

  /**
   * {@link ftsCandidates} from the terms' cached score lists, summed here: the same rows and raw
   * scores as FTS5 gives for the unpruned expressions (see term-scores.ts), without FTS5 scoring
   * every row that holds a common word. 60k chunks: a chat's search 13 -> 1 ms once its words'
   * lists are kept (bench/load.js).
   */
  private summedCandidates(
    projectId: number,
    plan: LexicalPlan,
    pool: number,
  ): Map<number, HitRow & { raw: number }> {
    const listOf = this.termLists(projectId);
    const main = plan.mainTerms.map(listOf);
    const context = plan.contextTerms.map(listOf);
    const acc = this.accumulator;
    acc.begin(maxId([...main, ...context]));
    for (const list of main) acc.add(list);
    const chosen = new Set(acc.top(pool));
    let contextScore: (id: number) => number = () => 0;
    if (context.length > 0) {
      // FTS5's `(main) AND (context)`: rows holding both, scored main then context phrases.
      const both = this.contextAccumulator;
      both.begin(maxId([...main, ...context]));
      for (const list of context) both.add(list);
      const inBoth = Array.from(both.touched).filter((id) => acc.has(id));
      // Bitwise FTS5's sum for the AND: the main sum, then each context phrase in order.
      const andScore = (id: number): number => {
        let s = acc.get(id);
        for (const list of context) s += scoreOf([list], id) ?? 0;
        return s;
      };
      for (const id of topIds(
        inBoth.filter((id) => !chosen.has(id)),
        andScore,
        pool,
      ))
        chosen.add(id);
      contextScore = (id) => both.get(id);
    }
    const rows = new Map<number, HitRow & { raw: number }>();
    if (chosen.size === 0) return rows;
    for (const r of this.stmt.hitRows.all(JSON.stringify([...chosen]))) {
      rows.set(r.id, { ...r, raw: acc.get(r.id) + CONTEXT_WEIGHT * contextScore(r.id) });
    }
    return rows;
  }

  /** Whether lexical scores come from kept term score lists (on) or from FTS5 (off, or a large index). */
  private summing(): boolean {
    if (this.termCache === undefined || this.indexRows() > SUMMED_UP_TO_ROWS) return false;
    // Kept lists serve; emptied ones are reloaded only once writes have paused.
    return this.termCache.filledAt === this.indexSize.generation || this.writesPaused();
  }

  /** Whether the chunk change counter has stood still for LISTS_AFTER_QUIET_MS (read by indexRows). */
  private writesPaused(): boolean {
    return Date.now() - this.indexSize.changedAt >= LISTS_AFTER_QUIET_MS;
  }

  /**
   * Reloads, once writes have paused ({@link LISTS_AFTER_QUIET_MS}), the term score lists the last
   * write emptied, most recently used first, for about `budgetMs` (a list is never cut short);
   * returns whether some remain. A read worker calls it while idle, so the first chats after an
   * ingestion find their words' lists loaded (on 105k chunks a chat's words cost 200-300 ms).
   */
  warmTermLists(budgetMs: number): boolean {
    const cache = this.termCache;
    if (!cache) return false;
    return this.readSnapshot(() => {
      if (this.indexRows() > SUMMED_UP_TO_ROWS) return false;
      if (!this.writesPaused()) return false;
      cache.sync(this.indexSize.generation);
      const started = Date.now();
      for (let key = cache.nextDropped(); key !== undefined; key = cache.nextDropped()) {
        cache.get(key, () => termScores(this.stmt.termRows.all(key)));
        if (Date.now() - started >= budgetMs) return true;
      }
      return false;
    });
  }

  /** Takes a term score list another index on this database loaded (SqliteChunkIndexOptions.onTermList). */
  adoptTermList(key: string, generation: number, list: TermScores): void {
    this.termCache?.adopt(key, generation, list);
  }

  /** The chunk change counter the kept term score lists belong to (null before any was loaded). */
  get termListsGeneration(): number | null {
    return this.termCache?.filledAt ?? null;
  }

  /** Chunk entries held by the term score lists (0 without them). */
  get termCacheEntries(): number {
    return this.termCache?.size ?? 0;
  }

  /**
   * BM25 of given chunks under the OR of `terms` (absent: no match): from the terms' score lists
   * when they are kept, else by FTS5 ({@link rawScores}).
   */
  private termScoresOf(projectId: number, terms: string[], chunkIds: number[]): Map<number, number> {
    if (!this.summing()) return this.rawScores(projectId, this.matchExpression(terms), chunkIds);
    const lists = terms.map(this.termLists(projectId));
    const out = new Map<number, number>();
    for (const id of chunkIds) {
      const score = scoreOf(lists, id);
      if (score !== undefined) out.set(id, score);
    }
    return out;
  }

  /**
   * A term's score list in a project (all of the index when it holds no other project), from the
   * cache, which is emptied first if any chunk changed since it was filled: the change counter is
   * read and the project checked once for all the terms it is then called with. Call it and the
   * function it returns inside {@link readSnapshot}.
   */
  private termLists(projectId: number): (term: string) => TermScores {
    const cache = this.termCache!;
    this.indexRows();
    cache.sync(this.indexSize.generation);
    const other = this.stmt.otherProjectChunk.get(projectId, projectId);
    return (term) => {
      const match = other ? projectMatch(projectId, term) : textMatch(term);
      return cache.get(match, () => termScores(this.stmt.termRows.all(match)));
    };
  }

  /**
   * SearchQuery.topic: the opening passage of each candidate page that names the topic (its
   * title, the last segment of its link or its top heading has the topic's words and no others)
   * ranks just above that page's best passage, read from the index when the pool lacks it. A
   * definition ("The decorators API customizes …") opens the topic's page, and shares too few
   * words with "what do decorators do?" to outrank the page's details. Costs one indexed read per
   * such page in the pool, never a scan.
   */
  private withTopicLeads(
    projectId: number,
    topic: string,
    plan: LexicalPlan,
    ranked: Array<{ hit: SearchHit; rank: number }>,
  ): void {
    const topicStems = new Set(queryStems(topic));
    if (topicStems.size === 0) return;
    const best = new Map<number, { hit: SearchHit; rank: number }>();
    for (const r of ranked) if (!best.has(r.hit.documentId)) best.set(r.hit.documentId, r);
    for (const [documentId, top] of best) {
      if (!namesTopic(top.hit, topicStems)) continue;
      const lead = this.stmt.leadChunks.all(documentId, projectId).find((c) => hasProse(c.content));
      if (!lead) continue;
      const rank = top.rank * (1 + TOPIC_LEAD_MARGIN);
      const present = ranked.find((r) => r.hit.chunkId === lead.id);
      if (present) {
        present.rank = Math.max(present.rank, rank);
        continue;
      }
      const headingPath = JSON.parse(lead.heading_path) as string[];
      const passage = `${lead.title}\n${headingPath.join('\n')}\n${lead.content}`;
      const raw = this.termScoresOf(projectId, plan.mainTerms, [lead.id]).get(lead.id) ?? 0;
      const found = stemsFound(plan.weights, passage);
      const hit = toHit(lead, lexicalRelevance(raw, coverageOf(plan.weights, found)), headingPath);
      ranked.push({ hit, rank });
    }
  }

  /**
   * The lexical relevance of given chunks (those a dense search found) as {@link searchLexical}
   * would score them, 0 for a chunk not matching the question, so hybrid fusion sees one scale.
   */
  lexicalScores(query: SearchQuery, chunkIds: number[]): Map<number, LexicalScore> {
    return this.readSnapshot(() => this.lexicalScoresNow(query, chunkIds));
  }

  private lexicalScoresNow(query: SearchQuery, chunkIds: number[]): Map<number, LexicalScore> {
    const out = new Map<number, LexicalScore>();
    const plan = this.lexicalPlan(query);
    if (!plan || chunkIds.length === 0) return out;
    const raw = this.termScoresOf(query.projectId, plan.mainTerms, chunkIds);
    if (raw.size === 0) return out;
    const contextRaw =
      plan.contextTerms.length > 0
        ? this.termScoresOf(query.projectId, plan.contextTerms, [...raw.keys()])
        : undefined;
    const rows = this.db
      .prepare<[string], { id: number; title: string; heading_path: string; content: string }>(
        'SELECT id, title, heading_path, content FROM chunks WHERE id IN (SELECT value FROM json_each(?))',
      )
      .all(JSON.stringify([...raw.keys()]));
    for (const r of rows) {
      const bm25 = (raw.get(r.id) ?? 0) + CONTEXT_WEIGHT * (contextRaw?.get(r.id) ?? 0);
      const headingPath = JSON.parse(r.heading_path) as string[];
      const passage = `${r.title}\n${headingPath.join('\n')}\n${r.content}`;
      const found = stemsFound(plan.weights, passage);
      const rank = bm25 * (UNCOVERED_FACTOR + (1 - UNCOVERED_FACTOR) * coverageOf(plan.shares, found));
      out.set(r.id, {
        score: lexicalRelevance(bm25, coverageOf(plan.weights, found)),
        rankRelevance: rankRelevance(rank),
      });
    }
    return out;
  }

  /**
   * The MATCH expressions of a query (the question's own terms, and the context's terms it does
   * not already have) and the coverage weight of each stem. Undefined without a search term.
   */
  private lexicalPlan(query: SearchQuery): LexicalPlan | undefined {
    let text = query.text;
    let context = query.context ?? '';
    // A question of stop words only ("and then?") is searched as its context.
    if (context.trim() !== '' && queryStems(text).length === 0) [text, context] = [context, ''];
    const terms = matchTerms(text);
    if (terms.length === 0) return undefined;
    const stems = queryStems(text);
    const contextStems = queryStems(context).filter((s) => !stems.includes(s));
    const { weights, shares } = weighStems(stems, contextStems, this.idfs([...stems, ...contextStems]));
    const own = new Set(terms);
    const contextTerms = contextStems.length > 0 ? matchTerms(context).filter((t) => !own.has(t)) : [];
    return { mainTerms: terms, contextTerms, weights, shares };
  }

  /** Up to `limit` chunk rows matching `match` (already project-scoped), best BM25 first. */
  private rankedRows(
    match: string,
    filter: { sql: string; params: unknown[] },
    limit: number,
  ): Array<HitRow & { raw: number }> {
    // Rank inside FTS5 first (scoped to the project by its token), then read the stored fields
    // of the few rows kept, instead of joining every match to chunks and sources.
    const sql = `
      WITH top AS (
        SELECT chunks_fts.rowid AS id, -bm25(chunks_fts, ${FTS_WEIGHTS.join(', ')}) AS raw
        FROM chunks_fts
        ${filter.sql ? 'JOIN chunks fc ON fc.id = chunks_fts.rowid JOIN documents d ON d.id = fc.document_id' : ''}
        WHERE chunks_fts MATCH ? ${filter.sql ? `AND ${filter.sql}` : ''}
        ORDER BY raw DESC
        LIMIT ?)
      SELECT ${HIT_COLUMNS}, top.raw
      FROM top
      JOIN chunks c ON c.id = top.id
      JOIN sources s ON s.id = c.source_id`;
    return this.db.prepare(sql).all(match, ...filter.params, limit) as Array<HitRow & { raw: number }>;
  }

  /**
   * {@link rankedRows} of one project's chunks. When the project holds most of the index and no
   * filter applies, the match runs unscoped and the rows of other projects are dropped after:
   * intersecting with the project token's posting list (every chunk of the project) cost 114 ms
   * of a 137 ms lexical query at 1M chunks, unscoped 32 ms, same rows (bench/retrieval/latency.js).
   * Scores are the same either way (the project column weighs 0 and bm25's statistics are
   * index-wide); the result is exact whenever the unscoped top holds `limit` of the project's rows
   * or every match, and otherwise the scoped query runs.
   */
  private rankedProjectRows(
    projectId: number,
    match: string,
    filter: { sql: string; params: unknown[] },
    limit: number,
  ): Array<HitRow & { raw: number }> {
    const scoped = this.scoped(projectId, match);
    // No other project in the index: the match is already unscoped and every row is the project's.
    const share = filter.sql || scoped === textMatch(match) ? 0 : this.projectShare(projectId);
    if (share >= UNSCOPED_FROM_SHARE) {
      const wide = Math.ceil(limit / share) + UNSCOPED_SLACK;
      const top = this.db
        .prepare(
          `WITH top AS (
             SELECT chunks_fts.rowid AS id, -bm25(chunks_fts, ${FTS_WEIGHTS.join(', ')}) AS raw
             FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY raw DESC LIMIT ?)
           SELECT ${HIT_COLUMNS}, top.raw, c.project_id AS project_id
           FROM top JOIN chunks c ON c.id = top.id JOIN sources s ON s.id = c.source_id
           ORDER BY top.raw DESC`,
        )
        .all(textMatch(match), wide) as Array<HitRow & { raw: number; project_id: number }>;
      const own = top
        .filter((r) => r.project_id === projectId)
        .slice(0, limit)
        .map(({ project_id: _project, ...r }) => r);
      if (own.length >= limit || top.length < wide) return own;
    }
    return this.rankedRows(scoped, filter, limit);
  }

  /** The share of the index's chunks in one project, re-counted after any chunk changed. */
  private projectShare(projectId: number): number {
    const rows = this.indexRows();
    if (rows < PRUNE_FROM_ROWS) return 0;
    const generation = this.indexSize.generation;
    let cached = this.projectRows.get(projectId);
    if (!cached || cached.generation !== generation) {
      cached = { n: this.stmt.countChunks.get(projectId)?.n ?? 0, generation };
      this.projectRows.set(projectId, cached);
    }
    return cached.n / rows;
  }

  private projectRows = new Map<number, { n: number; generation: number }>();

  /**
   * BM25 of given chunks (all of the project) under a MATCH expression (absent: no match). One
   * statement for all ids, because FTS5 recomputes bm25's term statistics per statement. The ids
   * already scope it, so a project holding most of the index skips the project token (see
   * rankedProjectRows).
   */
  private rawScores(projectId: number, match: string, chunkIds: number[]): Map<number, number> {
    if (chunkIds.length === 0) return new Map();
    // The ids already scope it: a project holding most of the index skips the project token (see
    // rankedProjectRows). The rowid range is what FTS5 is given; the `+` keeps the IN list from it.
    // Given the list, FTS5 runs the query once per id, each time recomputing bm25's statistics over
    // whole posting lists: 3 to 11 ms an id on 60k chunks. Over the range it runs once.
    const scoped =
      this.projectShare(projectId) >= UNSCOPED_FROM_SHARE ? textMatch(match) : this.scoped(projectId, match);
    const rows = this.db
      .prepare<[string, number, number, string], { rowid: number; raw: number }>(
        `SELECT rowid, -bm25(chunks_fts, ${FTS_WEIGHTS.join(', ')}) AS raw FROM chunks_fts
         WHERE chunks_fts MATCH ? AND rowid >= ? AND rowid <= ? AND +rowid IN (SELECT value FROM json_each(?))`,
      )
      .all(scoped, Math.min(...chunkIds), Math.max(...chunkIds), JSON.stringify(chunkIds));
    return new Map(rows.map((r) => [r.rowid, r.raw]));
  }

  /**
   * A MATCH expression limited to the project's chunks. When the index holds no other project's
   * chunk, the project term is left out: it is on every row, so FTS5 would merge and score a
   * posting list as long as the index for nothing (its column weighs 0, so BM25 is the same to
   * the bit), about 40% of a common-word query on 60k chunks. Call it inside
   * {@link readSnapshot}, so no other project's chunk can appear between the check and the query.
   */
  private scoped(projectId: number, match: string): string {
    const other = this.stmt.otherProjectChunk.get(projectId, projectId);
    return other ? projectMatch(projectId, match) : textMatch(match);
  }

  /** Runs reads in one snapshot (a deferred transaction, a savepoint inside one already open). */
  private readSnapshot<T>(read: () => T): T {
    return this.db.transaction(read)();
  }

  /**
   * Coverage weight of each stem: its idf over the whole index, at least IDF_FLOOR. Document
   * frequencies come from an fts5vocab table (one b-tree lookup per stem), not from counting
   * matches, which costs a scan of the posting list of a common word.
   */
  private idfs(stems: string[]): (stem: string) => number {
    const rows = this.indexRows();
    // The vocab table walks a word's posting list (1.6 ms for a word on most of 105k chunks), so
    // idfs are kept until a chunk changes: words repeat across questions.
    const generation = this.indexSize.generation;
    if (this.idfCache.generation !== generation) this.idfCache = { generation, idf: new Map() };
    const cache = this.idfCache.idf;
    if (!this.vocab) {
      this.db.exec(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_fts_vocab USING fts5vocab('main', 'chunks_fts', 'row')",
      );
      this.vocab = this.db.prepare<[string], { doc: number }>(
        'SELECT doc FROM temp.chunks_fts_vocab WHERE term = ?',
      );
    }
    for (const s of stems) {
      if (cache.has(s)) continue;
      if (cache.size >= MAX_CACHED_IDFS) cache.clear();
      const n = Math.min(rows, this.vocab.get(s)?.doc ?? 0);
      cache.set(s, Math.max(IDF_FLOOR, Math.log(1 + (rows - n + 0.5) / (n + 0.5))));
    }
    return (s) => cache.get(s) ?? IDF_FLOOR;
  }

  private idfCache = { generation: -1, idf: new Map<string, number>() };
  private vocab: BetterSqlite3.Statement<[string], { doc: number }> | undefined;

  /** `changedAt`: when this index saw the counter move (0 for the first reading: no write seen). */
  private indexSize = { rows: 0, generation: -1, changedAt: 0 };

  /**
   * Chunks in the whole index, re-counted when the chunk table's change counter (chunk_generation,
   * one indexed read) has moved since the last count: a count walks an index of every chunk.
   */
  private indexRows(): number {
    const generation = this.stmt.generation.get()?.n ?? 0;
    if (generation !== this.indexSize.generation) {
      const changedAt = this.indexSize.generation === -1 ? 0 : Date.now();
      this.indexSize = { rows: this.stmt.countAllChunks.get()?.n ?? 0, generation, changedAt };
      // The pruning counts and idfs are as old as the row count, no older.
      this.termCounts = new Map();
    }
    return this.indexSize.rows;
  }

  /**
   * Matching chunks of a term, counted up to `commonAt`, kept until the next row count: the count
   * walks the term's posting list (3 ms a question on 60k chunks), and questions repeat words.
   */
  private termCounts = new Map<string, number>();

  /** Full OR semantics on small indexes; common terms made optional filters on large ones. */
  private matchExpression(terms: string[]): string {
    const rows = this.indexRows();
    if (rows < PRUNE_FROM_ROWS || terms.length < 2) return terms.join(' OR ');
    const commonAt = Math.floor(rows * COMMON_TERM_SHARE);
    // Counted up to commonAt (a posting-list walk, 2-3 ms per common word at 1M chunks) and kept
    // while the row count is, like idfs: hybrid search plans the same question twice.
    const count = this.db.prepare<[string], { n: number }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ${commonAt})`,
    );
    const counts = this.termCounts;
    const documentFrequency = (t: string): number => {
      let n = counts.get(t);
      if (n === undefined) {
        if (counts.size >= MAX_CACHED_IDFS) counts.clear();
        n = count.get(textMatch(t))?.n ?? 0;
        counts.set(t, n);
      }
      return n;
    };
    return prunedMatchExpression(terms, documentFrequency, commonAt);
  }

  private clearSource(sourceId: number): void {
    this.vectors.deleteOfSource(sourceId);
    this.ftsTotals.deleteRows(
      () => this.stmt.ftsSizesOfSource.all(sourceId),
      () => this.stmt.deleteFtsOfSource.run(sourceId),
    );
    this.stmt.deleteChunksOfSource.run(sourceId);
    this.stmt.deleteDocumentsOfSource.run(sourceId);
  }
}

/** Words of prose a page's opening passage needs; a banner or a lone heading has fewer. */
const LEAD_MIN_WORDS = 5;
/** How many of a page's first passages are looked at for its opening. */
const LEAD_CANDIDATES = 3;

/**
 * Whether a passage has a sentence's worth of words outside HTML tags, headings, images and
 * badges: a page that opens with a logo banner (`<h1 align="center">Fastify</h1>`) does not
 * open with its definition.
 */
export function hasProse(markdown: string): boolean {
  const text = markdown
    .replace(/<[^>]*>/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join(' ');
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).length >= LEAD_MIN_WORDS;
}

/**
 * Whether a hit's page is the topic's own: its title, the last segment of its link (without
 * extension) or its top heading has exactly the topic's stems ("Reference/Decorators.md" and
 * "Decorators" for "decorators"), not merely among others ("Decorators and Encapsulation").
 */
export function namesTopic(
  hit: Pick<SearchHit, 'title' | 'link' | 'headingPath'>,
  topicStems: Set<string>,
): boolean {
  const lastSegment = (text: string): string =>
    (text.split(/[?#]/)[0] ?? '')
      .replace(/\/+$/, '')
      .split('/')
      .pop()
      ?.replace(/\.\w+$/, '') ?? '';
  for (const name of [lastSegment(hit.title), lastSegment(hit.link), hit.title, hit.headingPath[0] ?? '']) {
    const stems = queryStems(name.replace(/[-_]+/g, ' '));
    if (stems.length === topicStems.size && stems.every((s) => topicStems.has(s))) return true;
  }
  return false;
}

/**
 * Relevance in [0, 1] of a passage with BM25 `raw` that holds the share `coverage` (weighted, see
 * IDF_FLOOR) of the question: coverage · (COVERAGE_BASE + (1 − COVERAGE_BASE) · raw / (raw +
 * BM25_HALF)). Coverage says whether the passage is about the question even where BM25 is near 0
 * (a word on every page of a small site); BM25, through a fixed saturating curve, says how
 * strongly. Both are absolute, so the same passage and question score the same in any query.
 */
/**
 * What hybrid fusion ranks by on the lexical side: the coverage-scaled BM25 that orders lexical
 * results, through the fixed curve s / (s + 8). The calibrated score (lexicalRelevance) is flatter
 * by design (coverage decides most of it), and ranking fused results by it let a noisy dense
 * similarity decide more of the order: hit@1 of hybrid with the test model fell from 0.533 to
 * 0.489 (bench/retrieval/quality.js). It still is the score a hit reports.
 */
export function rankRelevance(rank: number): number {
  const s = Math.max(0, rank);
  return s / (s + BM25_HALF);
}

/** A lexical result with the relevance hybrid fusion ranks it by. */
export type LexicalHit = SearchHit & { rankRelevance: number };
/** The lexical side of a chunk found by the dense search: its reported score and its ranking relevance. */
export interface LexicalScore {
  score: number;
  rankRelevance: number;
}

export function lexicalRelevance(raw: number, coverage: number): number {
  const s = Math.max(0, raw);
  const c = Math.min(1, Math.max(0, coverage));
  return c * (COVERAGE_BASE + (1 - COVERAGE_BASE) * (s / (s + BM25_HALF)));
}

/**
 * Coverage weights of a query's stems (their idf) and of its context's stems (idf ×
 * {@link CONTEXT_WEIGHT}), with the share of a full term each counts for. Shared by the SQLite and
 * PostgreSQL stores, which differ only in where the idf comes from.
 */
export function weighStems(
  stems: readonly string[],
  contextStems: readonly string[],
  idf: (stem: string) => number,
): { weights: Map<string, number>; shares: Map<string, number> } {
  const weights = new Map<string, number>();
  const shares = new Map<string, number>();
  for (const s of stems) {
    weights.set(s, idf(s));
    shares.set(s, 1);
  }
  for (const s of contextStems) {
    weights.set(s, CONTEXT_WEIGHT * idf(s));
    shares.set(s, CONTEXT_WEIGHT);
  }
  return { weights, shares };
}
