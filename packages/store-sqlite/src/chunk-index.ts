import type BetterSqlite3 from 'better-sqlite3';
import type {
  ChunkStore,
  IndexedSource,
  PageVersion,
  ReplaceSourceInput,
  ReplaceSourceResult,
  SearchHit,
  SearchQuery,
  SourceRecord,
} from '@kbqa/core';
import type { LexicalHit, LexicalScore } from '@kbqa/ranking';
import { MetadataValues } from './metadata-values';
import { denseSearch, hybridSearch, type HybridDeps } from './hybrid';
import { SqliteLexicalRanker, type SqliteLexicalRankerOptions } from './lexical-ranker';
import { SqliteSourceCatalog } from './source-catalog';
import { SqliteSourceWriter } from './source-writer';
import type { TermScores } from './term-scores';
import { SqliteVectorIndex } from './vector-index';

export type { IndexedDocument, ReplaceSourceInput, ReplaceSourceResult, SourceRecord } from '@kbqa/core';

/** Options of a {@link SqliteChunkIndex}: those of its lexical ranker. */
export type SqliteChunkIndexOptions = SqliteLexicalRankerOptions & {
  /**
   * How the user runs kbqa's command line (`kbqa`, `pnpm kbqa`, `./kbqa-linux-x64`), named in
   * messages that tell them what to run. Default `kbqa`. Used by the vector index this index
   * makes (when none is given).
   */
  command?: string;
};

/**
 * The chunk index of one SQLite database: chunk rows, their FTS5 entries and (when an embedder
 * is configured) their vectors, always changed together in one transaction. A facade over its
 * writer ({@link SqliteSourceWriter}), its source catalog ({@link SqliteSourceCatalog}), its
 * lexical ranker ({@link SqliteLexicalRanker}) and its vectors, with one search entry point.
 */
export class SqliteChunkIndex implements ChunkStore {
  /** The vectors of this database's chunks (embedder binding, pending chunks, kNN). */
  readonly vectors: SqliteVectorIndex;
  private readonly writer: SqliteSourceWriter;
  private readonly catalog: SqliteSourceCatalog;
  private readonly lexical: SqliteLexicalRanker;
  private readonly hybridDeps: HybridDeps;
  private readonly metadata: MetadataValues;

  constructor(
    db: BetterSqlite3.Database,
    vectors?: SqliteVectorIndex,
    options: SqliteChunkIndexOptions = {},
  ) {
    this.metadata = new MetadataValues(db);
    this.vectors = vectors ?? new SqliteVectorIndex(db, { command: options.command });
    this.writer = new SqliteSourceWriter(db, this.vectors);
    this.catalog = new SqliteSourceCatalog(db);
    this.lexical = new SqliteLexicalRanker(db, options);
    this.hybridDeps = {
      db,
      vectors: this.vectors,
      lexical: (q) => this.lexical.rankLexical(q),
      lexicalSearch: (q) => this.lexical.searchLexical(q),
      lexicalScores: (q, chunkIds) => this.lexical.lexicalScores(q, chunkIds),
    };
  }

  /**
   * Replaces everything a source holds with the given documents, in one transaction, so a
   * re-run of an interrupted task never leaves duplicate chunks behind.
   */
  replaceSource(input: ReplaceSourceInput): ReplaceSourceResult {
    return this.writer.replaceSource(input);
  }

  /** Several sources in one transaction (see {@link SqliteSourceWriter.replaceSources}). */
  replaceSources(inputs: ReplaceSourceInput[]): ReplaceSourceResult[] {
    return this.writer.replaceSources(inputs);
  }

  /** Up to `pages` pages of FTS5 segment merging (see {@link SqliteSourceWriter.mergeStep}). */
  mergeStep(pages = 100): void {
    this.writer.mergeStep(pages);
  }

  /** {@link ChunkStore.maintain}: one merge step, and the vector change log pruned. */
  maintain(): void {
    this.writer.maintain();
  }

  /** Removes one source, named by itself or by a link one of its chunks cites; returns how many went. */
  deleteSource(projectId: number, source: string): number {
    return this.writer.deleteSource(projectId, source);
  }

  /** Removes every source of a project except those added by the teaching feature. */
  deleteAllSources(projectId: number): number {
    return this.writer.deleteAllSources(projectId);
  }

  keepSource(sourceId: number, indexId: number, version: PageVersion | undefined): void {
    this.writer.keepSource(sourceId, indexId, version);
  }

  deleteSourcesById(projectId: number, sourceIds: number[]): number {
    return this.writer.deleteSourcesById(projectId, sourceIds);
  }

  listSources(projectId: number): SourceRecord[] {
    return this.catalog.listSources(projectId);
  }

  indexSources(projectId: number, indexId: number): IndexedSource[] {
    return this.catalog.indexSources(projectId, indexId);
  }

  countIndexSources(projectId: number): Map<number, number> {
    return this.catalog.countIndexSources(projectId);
  }

  countChunks(projectId: number): number {
    return this.catalog.countChunks(projectId);
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

  absentWords(projectId: number, words: string[]): string[] {
    return this.catalog.absentWords(projectId, words);
  }

  /** One entry point for every mode; metadata filters apply inside each search, per project. */
  search(query: SearchQuery): Promise<SearchHit[]> {
    try {
      switch (query.mode) {
        case 'lexical':
          return Promise.resolve(this.lexical.searchLexical(query));
        case 'dense':
          return Promise.resolve(denseSearch(this.hybridDeps, query));
        case 'hybrid':
          return Promise.resolve(hybridSearch(this.hybridDeps, query));
      }
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** {@link SqliteLexicalRanker.searchLexical}. */
  searchLexical(query: SearchQuery): SearchHit[] {
    return this.lexical.searchLexical(query);
  }

  /** {@link SqliteLexicalRanker.rankLexical}. */
  rankLexical(query: SearchQuery): LexicalHit[] {
    return this.lexical.rankLexical(query);
  }

  /** {@link SqliteLexicalRanker.lexicalScores}. */
  lexicalScores(query: SearchQuery, chunkIds: number[]): Map<number, LexicalScore> {
    return this.lexical.lexicalScores(query, chunkIds);
  }

  /** {@link SqliteLexicalRanker.warmTermLists}. */
  warmTermLists(budgetMs: number): boolean {
    return this.lexical.warmTermLists(budgetMs);
  }

  /** Takes a term score list another index on this database loaded (SqliteChunkIndexOptions.onTermList). */
  adoptTermList(key: string, generation: number, list: TermScores): void {
    this.lexical.adoptTermList(key, generation, list);
  }

  /** The chunk change counter the kept term score lists belong to (null before any was loaded). */
  get termListsGeneration(): number | null {
    return this.lexical.termListsGeneration;
  }

  /** Chunk entries held by the term score lists (0 without them). */
  get termCacheEntries(): number {
    return this.lexical.termCacheEntries;
  }
}
