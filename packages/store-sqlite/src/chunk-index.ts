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
import { HIT_COLUMNS, type HitRow, toHit } from './hit-row';
import { matchTerms, prunedMatchExpression, queryStems, termCoverage } from './fts-query';
import { metadataWhereSql } from './metadata-filter';
import { denseSearch, hybridSearch, type HybridDeps } from './hybrid';
import { SqliteVectorIndex } from './vector-index';
import { nowTimestamp, withUtcOffset } from './time';

export type { IndexedDocument, ReplaceSourceInput, ReplaceSourceResult, SourceRecord } from '@kbqa/core';

/** Index size from which common query terms stop widening the candidate set. */
const PRUNE_FROM_ROWS = 20_000;
/** A term in at least this share of chunks is "common" (BM25 gives it little weight anyway). */
const COMMON_TERM_SHARE = 0.1;
const INDEX_SIZE_TTL_MS = 5_000;

/** BM25 column weights: title, heading path, body prose, body code (see FTS_COLUMNS). */
export const FTS_WEIGHTS = [0, 4.0, 2.5, 1.0, 0.5] as const;
/**
 * Lexical candidates re-ranked by query-term coverage, as a multiple of topK: coverage only
 * reorders passages BM25 already ranks near the top, so a small pool is enough.
 */
const RERANK_POOL = 2;
const MAX_RERANK_POOL = 100;
/** Score factor of a passage that covers none of the query terms; all of them gives 1. */
const UNCOVERED_FACTOR = 0.75;

/**
 * The chunk index of one SQLite database: chunk rows, their FTS5 entries and (when an embedder
 * is configured) their vectors, always changed together in one transaction.
 */
export class SqliteChunkIndex implements ChunkStore {
  private readonly stmt: ReturnType<SqliteChunkIndex['prepare']>;
  /** The vectors of this database's chunks (embedder binding, pending chunks, kNN). */
  readonly vectors: SqliteVectorIndex;
  private readonly hybridDeps: HybridDeps;

  constructor(
    private readonly db: BetterSqlite3.Database,
    vectors?: SqliteVectorIndex,
  ) {
    this.stmt = this.prepare();
    this.vectors = vectors ?? new SqliteVectorIndex(db);
    this.hybridDeps = {
      db,
      vectors: this.vectors,
      lexical: (q) => this.searchLexical(q),
      matchExpression: (text) => {
        const terms = matchTerms(text);
        return terms.length > 0 ? this.matchExpression(terms) : undefined;
      },
      ftsWeights: FTS_WEIGHTS,
      lexicalRelevance,
    };
  }

  private prepare() {
    const db = this.db;
    return {
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

  /** {@link ChunkStore.maintain}: one merge step. */
  maintain(): void {
    this.mergeStep(100);
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
   * BM25 over title, heading path, body prose and body code, scaled down for passages that
   * cover few of the query terms (see termCoverage). FTS5's bm25() is unbounded, so the result
   * is mapped to [0, 1] with a fixed saturating curve: the same raw score and coverage always
   * give the same relevance, which keeps scores comparable across queries of a project.
   */
  searchLexical(query: SearchQuery): SearchHit[] {
    const terms = matchTerms(query.text);
    if (terms.length === 0) return [];
    const match = this.matchExpression(terms);
    const filter = metadataWhereSql(query.filters ?? [], 'd.metadata');
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
    const pool = Math.max(query.topK, Math.min(query.topK * RERANK_POOL, MAX_RERANK_POOL));
    const rows = this.db
      .prepare(sql)
      .all(projectMatch(query.projectId, match), ...filter.params, pool) as Array<HitRow & { raw: number }>;
    const stems = queryStems(query.text);
    return rows
      .map((r) => {
        const headingPath = JSON.parse(r.heading_path) as string[];
        const coverage = termCoverage(stems, `${r.title}\n${headingPath.join('\n')}\n${r.content}`);
        const score = lexicalRelevance(r.raw * (UNCOVERED_FACTOR + (1 - UNCOVERED_FACTOR) * coverage));
        return toHit(r, score, headingPath);
      })
      .sort((a, b) => b.score - a.score)
      .slice(0, query.topK);
  }

  private indexSize = { rows: 0, at: 0 };

  /** Full OR semantics on small indexes; common terms made optional filters on large ones. */
  private matchExpression(terms: string[]): string {
    const now = Date.now();
    if (now - this.indexSize.at > INDEX_SIZE_TTL_MS) {
      this.indexSize = { rows: this.stmt.countAllChunks.get()?.n ?? 0, at: now };
    }
    const rows = this.indexSize.rows;
    if (rows < PRUNE_FROM_ROWS || terms.length < 2) return terms.join(' OR ');
    const commonAt = Math.floor(rows * COMMON_TERM_SHARE);
    const count = this.db.prepare<[string], { n: number }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ${commonAt})`,
    );
    return prunedMatchExpression(terms, (t) => count.get(textMatch(t))?.n ?? 0, commonAt);
  }

  private clearSource(sourceId: number): void {
    this.vectors.deleteOfSource(sourceId);
    this.stmt.deleteFtsOfSource.run(sourceId);
    this.stmt.deleteChunksOfSource.run(sourceId);
    this.stmt.deleteDocumentsOfSource.run(sourceId);
  }
}

/** Saturating map of a (positive) BM25 score into [0, 1). */
export function lexicalRelevance(raw: number): number {
  const s = Math.max(0, raw);
  return s / (s + 8);
}
