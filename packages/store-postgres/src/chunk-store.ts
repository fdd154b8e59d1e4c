import type { Pool, PoolClient } from 'pg';
import type {
  Chunk,
  ChunkDraft,
  ChunkStore,
  IndexedSource,
  PageVersion,
  ReplaceSourceInput,
  ReplaceSourceResult,
  SearchHit,
  SearchQuery,
  SourceRecord,
} from '@kbqa/core';
import { KbqaError, sha256Hex } from '@kbqa/core';
import {
  cappedHits,
  CONTEXT_WEIGHT,
  coverageIdf,
  fuseScores,
  HIT_COLUMNS,
  type HitRow as StoredHitRow,
  hybridPool,
  IDF_FLOOR,
  type LexicalHit,
  type LexicalPlan as RankingPlan,
  type LexicalScore,
  passageText,
  planLexical,
  queryWords,
  rankRelevance,
  rerankPool,
  scorePassage,
  splitProseAndCode,
  toHit,
  withOpeningSlot,
} from '@kbqa/ranking';
import { RowCache } from './row-cache';
import { Bm25Ranker, documentLength, type RankTerm } from './bm25';
import { metadataWhereSql } from './metadata-filter';
import { bumpGenerations, inTransaction, migrate, POSTINGS_SELECT } from './migrations';
import { searchText, tsQueryOf } from './text-search';
import { PostgresVectorStore, type Queryable } from './vector-store';

/**
 * For ranking 'ts_rank_cd': weights for {D, C, B, A} = {code, prose, headings, title}: the SQLite store's
 * FTS_WEIGHTS (title 4, headings 2.5, prose 1, code 0.5) divided by the largest.
 */
const RANK_WEIGHTS = '{0.125, 0.25, 0.625, 1.0}';
/** ts_rank_cd normalization: 1 divides by 1 + log(document length), its nearest to BM25's. */
const RANK_NORMALIZATION = 1;
/** Brings ts_rank_cd, on a much smaller scale, near BM25's, which the relevance curves expect. */
const RANK_SCALE = 40;
const MAX_CACHED_IDFS = 10_000;
/** Plans of one question, when writes keep raising the index's generation while it is answered. */
const PLAN_ATTEMPTS = 3;

/** The weighted tsvector of a chunk row `r`: title A, heading path B, prose C, code D. */
const TSV_SQL = `setweight(to_tsvector('kbqa_english', r.t_title), 'A')
  || setweight(to_tsvector('kbqa_english', r.t_headings), 'B')
  || setweight(to_tsvector('kbqa_english', r.t_prose), 'C')
  || setweight(to_tsvector('kbqa_english', r.t_code), 'D')`;

/** Default bound of the held hit rows, in characters. */
const DEFAULT_CACHED_ROW_CHARS = 8_000_000;

/** A hit row as node-postgres reads it: the heading path (jsonb) comes parsed. */
type HitRow = StoredHitRow<string[]>;

/** The ranking model's plan with the tsqueries of its terms. */
interface LexicalPlan extends RankingPlan {
  /** tsquery of the question's own terms, which a passage must match. */
  main: string;
  /** tsquery of the context's terms the question does not have. */
  context?: string;
}

/**
 * How lexical candidates are ranked before the coverage re-ranking: `bm25` (default) as the
 * SQLite store does; `ts_rank_cd`, Postgres's own, kept for the comparison in docs/postgres.md.
 */
export type LexicalRanking = 'bm25' | 'ts_rank_cd';

export interface PostgresChunkStoreOptions {
  ranking?: LexicalRanking;
  /**
   * Above this many postings of a question's words in the project, BM25 skips the chunks that
   * only common words could rank (MaxScore); the order is the same. Default 5,000; 0 always
   * prunes, which tests use to compare both ways on small data.
   */
  pruneAbovePostings?: number;
  /**
   * Postings the process holds for lexical search (PostingsCache: BM25 summed here, not in
   * PostgreSQL; default 4,000,000, at most about 48 MB); 0 sums every question in SQL, which tests use
   * to compare both ways.
   */
  cachedPostings?: number;
  /**
   * Characters of hit rows (content, title, link) the process holds, by chunk id; default
   * 8,000,000 (some 4,000 chunks of the fastify docs); 0 reads every hit from the table.
   */
  cachedRowChars?: number;
  /**
   * How the user runs kbqa's command line (`kbqa`, `pnpm kbqa`, `./kbqa-linux-x64`), named in
   * messages that tell them what to run. Default `kbqa`.
   */
  command?: string;
}

/**
 * Opens the chunk store on a pool: migrates (under an advisory lock, so several processes may
 * start at once) and finds out whether pgvector is there. The caller owns the pool: it ends it,
 * and listens for its `error` events (an idle connection the server closes), which node-postgres
 * otherwise raises as an uncaught error.
 */
export async function openPostgresChunkStore(
  pool: Pool,
  options: PostgresChunkStoreOptions = {},
): Promise<PostgresChunkStore> {
  const { vectorsAvailable } = await migrate(pool);
  return new PostgresChunkStore(
    pool,
    new PostgresVectorStore(pool, vectorsAvailable, { command: options.command }),
    options,
  );
}

/**
 * The ChunkStore of a PostgreSQL database: sources, documents and chunks with a weighted
 * tsvector (GIN-indexed) per chunk, and their pgvector vectors when the server has pgvector.
 * Lexical search ranks with BM25 (FTS5's, from the tsvectors' term statistics), then re-ranks by
 * query-term coverage and scores with the same calibrated relevance as the SQLite store.
 */
export class PostgresChunkStore implements ChunkStore {
  private readonly bm25: Bm25Ranker;
  private readonly ranking: LexicalRanking;
  private readonly rowCache: RowCache<HitRow> | undefined;

  constructor(
    private readonly pool: Pool,
    readonly vectors: PostgresVectorStore,
    options: PostgresChunkStoreOptions = {},
  ) {
    this.bm25 = new Bm25Ranker(pool, options.pruneAbovePostings, options.cachedPostings);
    this.ranking = options.ranking ?? 'bm25';
    const rowChars = options.cachedRowChars ?? DEFAULT_CACHED_ROW_CHARS;
    this.rowCache =
      rowChars > 0
        ? new RowCache<HitRow>(rowChars, (r) => r.content.length + r.title.length + r.link.length + 64)
        : undefined;
  }

  /** False when the server has no pgvector: the store is lexical-only. */
  get vectorsAvailable(): boolean {
    return this.vectors.available;
  }

  async replaceSources(inputs: ReplaceSourceInput[]): Promise<ReplaceSourceResult[]> {
    return this.transaction(async (client) => {
      // The sources that exist are locked first, in one order whatever order the caller gives, so
      // two transactions writing overlapping sources wait for each other instead of deadlocking.
      // They are then written in the caller's order, which is the order listSources reports.
      await client.query(
        `SELECT s.id FROM sources s
         JOIN unnest($1::int[], $2::text[]) AS i (project_id, source)
           ON s.project_id = i.project_id AND s.source = i.source
         ORDER BY s.id FOR UPDATE OF s`,
        [inputs.map((i) => i.projectId), inputs.map((i) => i.source)],
      );
      const results: ReplaceSourceResult[] = [];
      for (const input of inputs) results.push(await this.replaceSource(client, input));
      await bumpGenerations(
        client,
        inputs.map((i) => i.projectId),
      );
      return results;
    });
  }

  private async replaceSource(client: PoolClient, input: ReplaceSourceInput): Promise<ReplaceSourceResult> {
    const version = input.version ? JSON.stringify(input.version) : null;
    const hash = input.contentHash ?? null;
    // A new source is inserted; when the row exists (or another writer's insert of it commits
    // first, which ON CONFLICT waits for) it is locked instead, so two writers replacing one
    // source take turns rather than failing on the unique key or duplicating its chunks.
    const inserted = (
      await client.query<{ id: number }>(
        `INSERT INTO sources (project_id, source, kind, date_added, updated_at, index_id, version, content_hash)
         VALUES ($1, $2, $3, now(), now(), $4, $5, $6)
         ON CONFLICT (project_id, source) DO NOTHING RETURNING id`,
        [input.projectId, input.source, input.kind, input.indexId ?? null, version, hash],
      )
    ).rows[0];
    let sourceId: number;
    let carried = new Map<string, string>();
    if (inserted) {
      sourceId = inserted.id;
    } else {
      sourceId = (
        await client.query<{ id: number }>(
          'SELECT id FROM sources WHERE project_id = $1 AND source = $2 FOR UPDATE',
          [input.projectId, input.source],
        )
      ).rows[0]!.id;
      carried = await this.vectors.vectorsBySourceHash(client, sourceId);
      await this.clearSource(client, sourceId);
      await client.query(
        'UPDATE sources SET kind = $1, updated_at = now(), index_id = $2, version = $3, content_hash = $4 WHERE id = $5',
        [input.kind, input.indexId ?? null, version, hash, sourceId],
      );
    }
    const chunkIds: number[] = [];
    const restored: Array<{ chunkId: number; vector: string }> = [];
    for (const { document, chunks } of input.documents) {
      const text = document.parts ? document.parts.map((p) => p.text).join('\n') : document.content;
      const documentId = (
        await client.query<{ id: number }>(
          `INSERT INTO documents (project_id, source_id, title, link, metadata, content_hash, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, now()) RETURNING id`,
          [
            input.projectId,
            sourceId,
            document.title ?? chunks[0]?.title ?? input.source,
            document.link ?? input.source,
            JSON.stringify(document.metadata ?? {}),
            sha256Hex(text),
          ],
        )
      ).rows[0]!.id;
      const ids = await insertChunks(client, input.projectId, sourceId, documentId, chunks);
      chunks.forEach((chunk, i) => {
        const chunkId = ids[i]!;
        const vector = carried.get(chunk.contentHash);
        if (vector) restored.push({ chunkId, vector });
        chunkIds.push(chunkId);
      });
    }
    await this.vectors.restore(client, restored);
    return { sourceId, chunkIds };
  }

  /** Removes one source, named by itself or by a link one of its chunks cites. */
  async deleteSource(projectId: number, source: string): Promise<number> {
    return this.transaction(async (client) => {
      const row =
        (
          await client.query<{ id: number }>('SELECT id FROM sources WHERE project_id = $1 AND source = $2', [
            projectId,
            source,
          ])
        ).rows[0] ??
        (
          await client.query<{ id: number }>(
            'SELECT source_id AS id FROM chunks WHERE project_id = $1 AND link = $2 LIMIT 1',
            [projectId, source],
          )
        ).rows[0];
      if (!row) return 0;
      await client.query('DELETE FROM sources WHERE id = $1', [row.id]);
      await bumpGenerations(client, [projectId]);
      return 1;
    });
  }

  async deleteAllSources(projectId: number): Promise<number> {
    // Documents, chunks and vectors go with their source (ON DELETE CASCADE).
    return this.transaction(async (client) => {
      const { rowCount } = await client.query(
        "DELETE FROM sources WHERE project_id = $1 AND kind <> 'teach'",
        [projectId],
      );
      if (rowCount) await bumpGenerations(client, [projectId]);
      return rowCount ?? 0;
    });
  }

  async listSources(projectId: number): Promise<SourceRecord[]> {
    const { rows } = await this.pool.query<SourceRecord>(
      `SELECT id, source, kind,
         to_char(date_added AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"') AS "dateAdded"
       FROM sources WHERE project_id = $1 ORDER BY id`,
      [projectId],
    );
    return rows;
  }

  async indexSources(projectId: number, indexId: number): Promise<IndexedSource[]> {
    const { rows } = await this.pool.query<{
      id: number;
      source: string;
      content_hash: string | null;
      version: PageVersion | null;
    }>(
      'SELECT id, source, content_hash, version FROM sources WHERE project_id = $1 AND index_id = $2 ORDER BY id',
      [projectId, indexId],
    );
    return rows.map((r) => ({
      id: r.id,
      source: r.source,
      contentHash: r.content_hash,
      version: r.version ?? {},
    }));
  }

  async keepSource(sourceId: number, indexId: number, version: PageVersion | undefined): Promise<void> {
    await this.pool.query(
      'UPDATE sources SET index_id = $1, version = coalesce($2::jsonb, version) WHERE id = $3',
      [indexId, version ? JSON.stringify(version) : null, sourceId],
    );
  }

  async deleteSourcesById(projectId: number, sourceIds: number[]): Promise<number> {
    if (sourceIds.length === 0) return 0;
    return this.transaction(async (client) => {
      const { rowCount } = await client.query(
        'DELETE FROM sources WHERE project_id = $1 AND id = ANY($2::int[])',
        [projectId, sourceIds],
      );
      if (rowCount) await bumpGenerations(client, [projectId]);
      return rowCount ?? 0;
    });
  }

  async countIndexSources(projectId: number): Promise<Map<number, number>> {
    const { rows } = await this.pool.query<{ index_id: number; n: number }>(
      `SELECT index_id, count(*)::int AS n FROM sources
       WHERE project_id = $1 AND index_id IS NOT NULL GROUP BY index_id`,
      [projectId],
    );
    return new Map(rows.map((r) => [r.index_id, r.n]));
  }

  async metadataValues(projectId: number, field: string, limit: number): Promise<Array<string | number>> {
    // As the SQLite store: strings and numbers only (a `where` filter never matches a boolean).
    const { rows } = await this.pool.query<{ v: string | number }>(
      `SELECT DISTINCT v FROM (
         SELECT CASE jsonb_typeof(metadata -> $1::text) WHEN 'string' THEN to_jsonb(metadata ->> $1::text)
           WHEN 'number' THEN metadata -> $1::text END AS v
         FROM documents WHERE project_id = $2
       ) t WHERE v IS NOT NULL LIMIT $3`,
      [field, projectId, limit],
    );
    return rows.map((r) => r.v);
  }

  async documentsMetadataField(
    projectId: number,
    documentIds: number[],
    field: string,
  ): Promise<Map<number, string | number>> {
    const out = new Map<number, string | number>();
    if (documentIds.length === 0) return out;
    const { rows } = await this.pool.query<{ id: number; v: string | number | null }>(
      `SELECT id, CASE jsonb_typeof(metadata -> $1::text) WHEN 'string' THEN to_jsonb(metadata ->> $1::text)
         WHEN 'number' THEN metadata -> $1::text END AS v
       FROM documents WHERE project_id = $2 AND id = ANY($3::int[])`,
      [field, projectId, documentIds],
    );
    for (const r of rows) if (r.v !== null) out.set(r.id, r.v);
    return out;
  }

  async countChunks(projectId: number): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM chunks WHERE project_id = $1',
      [projectId],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * One statement for all the words: each read as the chunks' tsvectors are (kbqa_english), found
   * through the GIN index and stopped at its first chunk of the project. A word the configuration
   * reads as no lexeme is never absent.
   */
  async absentWords(projectId: number, words: string[]): Promise<string[]> {
    if (words.length === 0) return [];
    const { rows } = await this.pool.query<{ i: number }>(
      `SELECT w.i::int AS i
       FROM unnest($2::text[]) WITH ORDINALITY AS w (word, i),
         LATERAL (SELECT plainto_tsquery('kbqa_english', w.word) AS q) t
       WHERE numnode(t.q) > 0
         AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.tsv @@ t.q AND c.project_id = $1)
       ORDER BY w.i`,
      [projectId, words],
    );
    return rows.map((r) => words[r.i - 1] as string);
  }

  /** Nothing to do between writes: autovacuum keeps the GIN index's pending list short. */
  maintain(): void {}

  async search(query: SearchQuery): Promise<SearchHit[]> {
    switch (query.mode) {
      case 'lexical':
        return this.searchLexical(query);
      case 'dense':
        return this.denseSearch(query);
      case 'hybrid':
        return this.hybridSearch(query);
    }
  }

  /** Lexical hits, each score capped by those above it so scores never rise down the list. */
  async searchLexical(query: SearchQuery): Promise<SearchHit[]> {
    return cappedHits(await this.rankLexical(query));
  }

  /**
   * Candidates matching any of the question's terms, best BM25 first (context terms adding
   * {@link CONTEXT_WEIGHT} of theirs), re-ranked by the weighted share of query stems each
   * passage holds, as the SQLite store ranks them.
   */
  async rankLexical(query: SearchQuery): Promise<LexicalHit[]> {
    const pool = rerankPool(query.topK);
    const filter = metadataWhereSql(query.filters ?? [], 'd.metadata', 5);
    const ranked = await this.rawRanking(query, filter, pool);
    if (!ranked) return [];
    const { raw, plan } = ranked;
    const top = [...raw].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, pool);
    const rows = await this.hitRows(top.map(([id]) => id));
    const scored = rows
      .map((r) => {
        const { rank, score } = scorePassage(
          plan,
          raw.get(r.id) ?? 0,
          passageText(r.title, r.heading_path, r.content),
        );
        return { hit: toHit(r, score), rank };
      })
      .sort((a, b) => b.rank - a.rank || a.hit.chunkId - b.hit.chunkId);
    // A definition's search leads with its topic's page (SearchQuery.topic): no opening is given a place.
    return withOpeningSlot(scored, query.topK, query.topic ? new Map() : plan.shares).map((r) => ({
      ...r.hit,
      rankRelevance: rankRelevance(r.rank),
    }));
  }

  /**
   * The question's plan and the raw score of its best `pool` candidates (more for BM25). The plan's
   * idfs and BM25's statistics are held for one generation of the index: the held postings'
   * statement reads it with the question's lists (no round trip of its own), and a change since
   * the statistics were read means a write, so the question is planned again with them read
   * afresh. The other paths read it first.
   */
  private async rawRanking(
    query: SearchQuery,
    filter: { sql: string; params: unknown[] },
    pool: number,
  ): Promise<{ plan: LexicalPlan; raw: Map<number, number> } | undefined> {
    if (this.ranking !== 'bm25' || !this.bm25.readsGeneration(filter.sql)) await this.bm25.syncGeneration();
    for (let attempt = 1; ; attempt++) {
      const plan = await this.lexicalPlan(query);
      if (!plan) return undefined;
      const raw =
        this.ranking === 'bm25'
          ? await this.bm25.top(
              this.rankTerms(plan),
              plan.main,
              query.projectId,
              filter,
              pool,
              attempt >= PLAN_ATTEMPTS,
            )
          : await this.rawScores(plan, {
              sql: `c.project_id = $4${filter.sql ? ` AND ${filter.sql}` : ''}`,
              params: [query.projectId, ...filter.params],
              joinDocuments: filter.sql !== '',
            });
      if (raw) return { plan, raw };
    }
  }

  /** Lexical relevance of given chunks (found by the dense side), absent when they do not match. */
  async lexicalScores(query: SearchQuery, chunkIds: number[]): Promise<Map<number, LexicalScore>> {
    const out = new Map<number, LexicalScore>();
    const plan = await this.lexicalPlan(query);
    if (!plan || chunkIds.length === 0) return out;
    const raw = await this.rawScores(plan, {
      sql: 'c.id = ANY($4::int[])',
      params: [chunkIds],
      joinDocuments: false,
    });
    for (const r of await this.hitRows([...raw.keys()])) {
      const { rank, score } = scorePassage(
        plan,
        raw.get(r.id) ?? 0,
        passageText(r.title, r.heading_path, r.content),
      );
      out.set(r.id, { score, rankRelevance: rankRelevance(rank) });
    }
    return out;
  }

  /**
   * The raw lexical score of every chunk `scope` selects that matches the question: BM25 (see
   * {@link Bm25Ranker}), or scaled ts_rank_cd when the store was made with `ranking: 'ts_rank_cd'`.
   * `scope` is SQL over `chunks c` (and `documents d`), its parameters numbered from $4.
   */
  private async rawScores(
    plan: LexicalPlan,
    scope: { sql: string; params: unknown[]; joinDocuments: boolean },
  ): Promise<Map<number, number>> {
    if (this.ranking === 'bm25') {
      return this.bm25.scores(this.rankTerms(plan), plan.main, scope);
    }
    const { rows } = await this.pool.query<{ id: number; raw: number }>(
      `WITH q AS (SELECT to_tsquery('kbqa_english', $1) AS main, to_tsquery('kbqa_english', $2) AS ctx)
       SELECT c.id, $3::float8 * (ts_rank_cd('${RANK_WEIGHTS}', c.tsv, q.main, ${RANK_NORMALIZATION})
         + ${CONTEXT_WEIGHT} * ts_rank_cd('${RANK_WEIGHTS}', c.tsv, q.ctx, ${RANK_NORMALIZATION})) AS raw
       FROM q, chunks c ${scope.joinDocuments ? 'JOIN documents d ON d.id = c.document_id' : ''}
       WHERE c.tsv @@ q.main AND ${scope.sql}`,
      [plan.main, plan.context ?? '', RANK_SCALE, ...scope.params],
    );
    return new Map(rows.map((r) => [r.id, r.raw]));
  }

  /** The question's terms at full weight, the context's at {@link CONTEXT_WEIGHT}. */
  private rankTerms(plan: LexicalPlan): RankTerm[] {
    return [
      ...plan.mainTerms.map((term) => ({ term, factor: 1 })),
      ...plan.contextTerms.map((term) => ({ term, factor: CONTEXT_WEIGHT })),
    ];
  }

  /**
   * The hit columns of chunks, from rows held in the process where it has them (see
   * {@link RowCache}: they never change under an id): a question's ids come from posting lists
   * checked against the project's generation, or from a vector search, in the same question, so
   * the rows are those of the index the question read. One statement a question fewer, and work
   * PostgreSQL no longer does per chat.
   */
  private async hitRows(ids: number[]): Promise<HitRow[]> {
    if (ids.length === 0) return [];
    const out: HitRow[] = [];
    const missing: number[] = [];
    for (const id of ids) {
      const row = this.rowCache?.get(id);
      if (row) out.push(row);
      else missing.push(id);
    }
    if (missing.length === 0) return out;
    // Named: prepared once per connection (planning was most of its cost), it runs on every question.
    const { rows } = await this.pool.query<HitRow>({
      name: 'kbqa_hit_rows',
      text: `SELECT ${HIT_COLUMNS} FROM chunks c JOIN sources s ON s.id = c.source_id WHERE c.id = ANY($1::int[])`,
      values: [missing],
    });
    for (const r of rows) this.rowCache?.put(r.id, r);
    return [...out, ...rows];
  }

  private async denseSearch(query: SearchQuery): Promise<SearchHit[]> {
    const nearest = await this.vectors.nearest({
      projectId: query.projectId,
      vector: requireVector(query),
      k: query.topK,
      filters: query.filters,
    });
    return this.hydrate(nearest.map((n) => ({ chunkId: n.chunkId, score: n.similarity })));
  }

  /** Hybrid search as the SQLite store does it: both sides rescored on the other, then fuseScores. */
  private async hybridSearch(query: SearchQuery): Promise<SearchHit[]> {
    if (!query.vector) return this.searchLexical(query);
    const pool = hybridPool(query.topK);
    const lexicalHits = await this.rankLexical({ ...query, topK: pool });
    // The lexical candidates' similarities come with the dense search, in one round trip.
    const { nearest: denseHits, similarities } = await this.vectors.nearestAndScored(
      { projectId: query.projectId, vector: query.vector, k: query.topK, filters: query.filters },
      lexicalHits.map((h) => h.chunkId),
    );
    const ids = new Set([...lexicalHits.map((h) => h.chunkId), ...denseHits.map((h) => h.chunkId)]);
    const dense = new Map<number, number>(similarities);
    for (const h of denseHits) dense.set(h.chunkId, h.similarity);
    const lexical = new Map<number, LexicalScore>(
      lexicalHits.map((h) => [h.chunkId, { score: h.score, rankRelevance: h.rankRelevance }]),
    );
    const denseOnly = denseHits.filter((h) => !lexical.has(h.chunkId)).map((h) => h.chunkId);
    for (const [id, s] of await this.lexicalScores(query, denseOnly)) lexical.set(id, s);
    const fused = fuseScores(ids, lexical, dense, query.topK);
    return this.hydrate(fused);
  }

  private async hydrate(scored: Array<{ chunkId: number; score: number }>): Promise<SearchHit[]> {
    const byId = new Map((await this.hitRows(scored.map((s) => s.chunkId))).map((r) => [r.id, r]));
    const hits: SearchHit[] = [];
    for (const { chunkId, score } of scored) {
      const r = byId.get(chunkId);
      if (r) hits.push(toHit(r, score));
    }
    return hits;
  }

  /** The tsqueries of a query and the coverage weight of each stem, as the SQLite store plans them. */
  private async lexicalPlan(query: SearchQuery): Promise<LexicalPlan | undefined> {
    const words = queryWords(query);
    const main = words && tsQueryOf(words.terms);
    if (!words || !main) return undefined;
    const plan = planLexical(words, await this.idfs([...words.stems, ...words.contextStems]));
    return { ...plan, main, context: tsQueryOf(plan.contextTerms) };
  }

  private idfCache = { generation: -1, idf: new Map<string, number>() };

  /**
   * Idf of each stem over the whole index (coverageIdf of @kbqa/ranking), document frequencies
   * from the GIN index, held for one generation of the index as BM25's statistics are (see
   * {@link Bm25Ranker}).
   */
  private async idfs(stems: string[]): Promise<(stem: string) => number> {
    const { rows: total } = await this.bm25.indexStats();
    const generation = this.bm25.indexGeneration;
    if (this.idfCache.generation !== generation) this.idfCache = { generation, idf: new Map() };
    const cache = this.idfCache.idf;
    const missing = stems.filter((s) => !cache.has(s));
    if (missing.length > 0) {
      if (cache.size + missing.length > MAX_CACHED_IDFS) cache.clear();
      const { rows } = await this.pool.query<{ stem: string; n: number }>(
        `SELECT s AS stem, (SELECT count(*)::int FROM chunks WHERE tsv @@ to_tsquery('kbqa_english', quote_literal(s))) AS n
         FROM unnest($1::text[]) AS s`,
        [missing],
      );
      for (const r of rows) {
        const n = Math.min(total, r.n);
        cache.set(r.stem, coverageIdf(n, total));
      }
    }
    return (s) => cache.get(s) ?? IDF_FLOOR;
  }

  private async clearSource(client: PoolClient, sourceId: number): Promise<void> {
    // Chunks and their vectors go with the documents (ON DELETE CASCADE).
    await client.query('DELETE FROM documents WHERE source_id = $1', [sourceId]);
  }

  private async transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      return await inTransaction(client, () => fn(client));
    } finally {
      client.release();
    }
  }
}

/**
 * Inserts a document's chunks in one statement (one round trip per document, not per chunk: a
 * round trip per chunk made writing 20 times slower than the SQLite store) and returns their ids
 * in the order given. Identity values are drawn as the ordered rows are inserted, so the ids,
 * sorted, follow the input order.
 */
async function insertChunks(
  client: PoolClient,
  projectId: number,
  sourceId: number,
  documentId: number,
  chunks: ChunkDraft[],
): Promise<number[]> {
  const ids = await writeChunkRows(
    client,
    chunks.map((c) => ({ ...c, projectId, sourceId, documentId })),
    false,
  );
  return ids.sort((a, b) => a - b);
}

/**
 * Inserts chunks that keep the ids another store gave them (`kbqa store copy`), with their
 * tsvectors and postings computed as {@link PostgresChunkStore.replaceSources} computes them, in
 * the caller's transaction. Their sources and documents must be there already; `embedded_with`
 * stays empty until their vectors are written.
 */
export async function insertChunksWithIds(client: PoolClient, chunks: Chunk[]): Promise<void> {
  await writeChunkRows(client, chunks, true);
  await bumpGenerations(
    client,
    chunks.map((c) => c.projectId),
  );
}

async function writeChunkRows(
  client: PoolClient,
  chunks: Array<Omit<Chunk, 'id'> & { id?: number }>,
  keepIds: boolean,
): Promise<number[]> {
  if (chunks.length === 0) return [];
  const bodies = chunks.map((c) => splitProseAndCode(c.content));
  const { rows } = await client.query<{ id: number }>(
    `INSERT INTO chunks (${keepIds ? 'id, ' : ''}project_id, source_id, document_id, ordinal, kind, title,
       heading_path, link, content, content_hash, doc_len, tsv)
     SELECT ${keepIds ? 'r.id, ' : ''}r.project_id, r.source_id, r.document_id, r.ordinal, r.kind, r.title,
       r.heading_path::jsonb, r.link, r.content, r.content_hash, r.doc_len, ${TSV_SQL}
     FROM unnest($1::int[], $2::int[], $3::int[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[],
       $9::text[], $10::text[], $11::text[], $12::int[], $13::text[], $14::text[], $15::text[], $16::text[])
       WITH ORDINALITY AS r (id, project_id, source_id, document_id, ordinal, kind, title, heading_path, link,
         content, content_hash, doc_len, t_title, t_headings, t_prose, t_code, i)
     ORDER BY r.i
     RETURNING id`,
    [
      chunks.map((c) => c.id ?? null),
      chunks.map((c) => c.projectId),
      chunks.map((c) => c.sourceId),
      chunks.map((c) => c.documentId),
      chunks.map((c) => c.ordinal),
      chunks.map((c) => c.kind),
      chunks.map((c) => c.title),
      chunks.map((c) => JSON.stringify(c.headingPath)),
      chunks.map((c) => c.link),
      chunks.map((c) => c.content),
      chunks.map((c) => c.contentHash),
      chunks.map((c) => documentLength(c.title, c.headingPath.join(' '), c.content)),
      chunks.map((c) => searchText(c.title)),
      chunks.map((c) => searchText(c.headingPath.join(' '))),
      bodies.map((b) => searchText(b.prose)),
      bodies.map((b) => searchText(b.code)),
    ],
  );
  const ids = rows.map((r) => r.id);
  await client.query(
    `INSERT INTO chunk_postings (project_id, lexeme, chunk_id, tf, doc_len)
     ${POSTINGS_SELECT} WHERE c.id = ANY($1::int[]) GROUP BY c.id, u.lexeme`,
    [ids],
  );
  return ids;
}

function requireVector(query: SearchQuery): Float32Array {
  if (!query.vector) {
    throw new KbqaError('BAD_REQUEST', 'Dense search needs a query vector (SearchQuery.vector)');
  }
  return query.vector;
}

export type { Queryable };
