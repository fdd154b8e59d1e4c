import type BetterSqlite3 from 'better-sqlite3';
import type { SearchHit, SearchQuery } from '@kbqa/core';
import {
  cappedHits,
  CONTEXT_WEIGHT,
  coverageIdf,
  hasProse,
  HIT_COLUMNS,
  type HitRow,
  IDF_FLOOR,
  LEAD_CANDIDATES,
  type LexicalHit,
  type LexicalPlan,
  type LexicalScore,
  namesTopic,
  passageText,
  planLexical,
  queryStems,
  queryWords,
  rankRelevance,
  rerankPool,
  ScoreSum,
  scorePassage,
  TOPIC_LEAD_MARGIN,
  toHit,
  topIds,
  withOpeningSlot,
} from '@kbqa/ranking';
import { projectMatch, textMatch } from './fts-document';
import { prunedMatchExpression } from './fts-query';
import { metadataWhereSql } from './metadata-filter';
import {
  DEFAULT_TERM_CACHE_ENTRIES,
  maxId,
  scoreOf,
  TermScoreCache,
  type TermScores,
  termScores,
} from './term-scores';

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
 * first read scores every chunk holding the word, which on the largest indexes costs far more
 * than FTS5's pruned match (below; bench/retrieval/latency.js). Past this size FTS5 ranks, as before.
 */
const SUMMED_UP_TO_ROWS = 250_000;
/**
 * How long the index must go unchanged before a search reloads term score lists the last write
 * emptied. A list's first read scores every chunk holding its word, and during an ingestion
 * every commit empties them again: meanwhile FTS5
 * ranks, as past SUMMED_UP_TO_ROWS (bench/chat.js, chat during a 10,000-document ingestion).
 */
const LISTS_AFTER_QUIET_MS = 2_000;
/** A term in at least this share of chunks is "common" (BM25 gives it little weight anyway). */
const COMMON_TERM_SHARE = 0.1;
const MAX_CACHED_IDFS = 10_000;

/** BM25 column weights: title, heading path, body prose, body code (see FTS_COLUMNS). */
export const FTS_WEIGHTS = [0, 4.0, 2.5, 1.0, 0.5] as const;

export interface SqliteLexicalRankerOptions {
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
 * Lexical search over one SQLite database's chunks: BM25 of FTS5 (or of kept term score lists,
 * summed here), re-ranked by query-term coverage with the ranking model of @kbqa/ranking, topic
 * leads, and the caches it reads through (row counts, idfs, term counts, term score lists).
 */
export class SqliteLexicalRanker {
  private readonly stmt: ReturnType<SqliteLexicalRanker['prepare']>;
  private readonly termCache: TermScoreCache | undefined;
  private readonly sum = new ScoreSum();
  private readonly contextSum = new ScoreSum();

  constructor(
    private readonly db: BetterSqlite3.Database,
    options: SqliteLexicalRankerOptions = {},
  ) {
    this.stmt = this.prepare();
    const entries = options.termCacheEntries ?? DEFAULT_TERM_CACHE_ENTRIES;
    this.termCache = entries > 0 ? new TermScoreCache(entries, options.onTermList) : undefined;
  }

  private prepare() {
    const db = this.db;
    return {
      // The page's first content chunks; chunks_document narrows it to the page's few rows.
      leadChunks: db.prepare<[number, number], HitRow>(
        `SELECT ${HIT_COLUMNS} FROM chunks c JOIN sources s ON s.id = c.source_id
         WHERE c.document_id = ? AND c.project_id = ? AND c.kind = 'content' ORDER BY c.ordinal LIMIT ${LEAD_CANDIDATES}`,
      ),
      countChunks: db.prepare<[number], { n: number }>(
        'SELECT count(*) AS n FROM chunks WHERE project_id = ?',
      ),
      countAllChunks: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM chunks'),
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
   * Lexical search: BM25 over title, heading path, body prose and body code, scaled down for
   * passages that cover few of the query terms (see termCoverage), ranks the passages. Each gets
   * the relevance {@link lexicalRelevance} (how much of the question it holds, each word by its
   * rarity, with its BM25), capped by the relevance of the passages ranked above it so scores
   * never rise down the list. Context terms (SearchQuery.context) add {@link CONTEXT_WEIGHT} of
   * their BM25 and coverage weight to passages matching the question's own terms, which stay
   * dominant.
   */
  searchLexical(query: SearchQuery): SearchHit[] {
    return cappedHits(this.rankLexical(query));
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
    const pool = rerankPool(query.topK);
    // Metadata filters need the documents joined in SQL: FTS5 ranks those queries itself.
    const rows =
      this.summing() && !filter.sql
        ? this.summedCandidates(query.projectId, plan, pool)
        : this.ftsCandidates(query.projectId, plan, filter, pool);
    const ranked = [...rows.values()]
      .map((r) => {
        const headingPath = JSON.parse(r.heading_path) as string[];
        const { rank, score } = scorePassage(plan, r.raw, passageText(r.title, headingPath, r.content));
        return { hit: toHit(r, score, headingPath), rank };
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
   * every row that holds a common word (bench/load.js).
   */
  private summedCandidates(
    projectId: number,
    plan: LexicalPlan,
    pool: number,
  ): Map<number, HitRow & { raw: number }> {
    const listOf = this.termLists(projectId);
    const main = plan.mainTerms.map(listOf);
    const context = plan.contextTerms.map(listOf);
    const acc = this.sum;
    acc.begin(maxId([...main, ...context]));
    for (const list of main) acc.addList(list.ids, list.scores);
    const chosen = new Set(acc.top(pool));
    let contextScore: (id: number) => number = () => 0;
    if (context.length > 0) {
      // FTS5's `(main) AND (context)`: rows holding both, scored main then context phrases.
      const both = this.contextSum;
      both.begin(maxId([...main, ...context]));
      for (const list of context) both.addList(list.ids, list.scores);
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
   * ingestion find their words' lists loaded instead of paying for them.
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
      const raw = this.termScoresOf(projectId, plan.mainTerms, [lead.id]).get(lead.id) ?? 0;
      const { score } = scorePassage(plan, raw, passageText(lead.title, headingPath, lead.content));
      ranked.push({ hit: toHit(lead, score, headingPath), rank });
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
      const { rank, score } = scorePassage(plan, bm25, passageText(r.title, headingPath, r.content));
      out.set(r.id, { score, rankRelevance: rankRelevance(rank) });
    }
    return out;
  }

  /**
   * The MATCH expressions of a query (the question's own terms, and the context's terms it does
   * not already have) and the coverage weight of each stem. Undefined without a search term.
   */
  private lexicalPlan(query: SearchQuery): LexicalPlan | undefined {
    const words = queryWords(query);
    return words && planLexical(words, this.idfs([...words.stems, ...words.contextStems]));
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
   * intersecting with the project token's posting list (every chunk of the project) was most of
   * the query, for the same rows (bench/retrieval/latency.js).
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
    // whole posting lists. Over the range it runs once.
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
   * Coverage weight of each stem: its idf over the whole index (coverageIdf of @kbqa/ranking). Document
   * frequencies come from an fts5vocab table (one b-tree lookup per stem), not from counting
   * matches, which costs a scan of the posting list of a common word.
   */
  private idfs(stems: string[]): (stem: string) => number {
    const rows = this.indexRows();
    // The vocab table walks a word's posting list, so
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
      cache.set(s, coverageIdf(n, rows));
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
   * walks the term's posting list, and questions repeat words.
   */
  private termCounts = new Map<string, number>();

  /** Full OR semantics on small indexes; common terms made optional filters on large ones. */
  private matchExpression(terms: string[]): string {
    const rows = this.indexRows();
    if (rows < PRUNE_FROM_ROWS || terms.length < 2) return terms.join(' OR ');
    const commonAt = Math.floor(rows * COMMON_TERM_SHARE);
    // Counted up to commonAt (a posting-list walk per common word) and kept
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
}
