import type { ChunkDraft, LoadedDocument } from './documents';
import type { Retriever } from './retrieval';

/**
 * A value now or later. The SQLite store answers synchronously (better-sqlite3); a networked
 * store (Postgres + pgvector) answers with promises. Callers always `await`.
 */
export type MaybePromise<T> = T | Promise<T>;

/** How a source got in: raw documents, one of the ingestData types, or the teaching feature. */
export type SourceKind =
  'documents' | 'teach' | 'website-crawler' | 'docusaurus' | 'github' | 'youtube' | 'url' | 'sitemap';

/** One document with the chunks the chunker made of it. */
export interface IndexedDocument {
  document: LoadedDocument;
  chunks: ChunkDraft[];
}

/** Everything a source holds after ingestion; replacing it is all or nothing. */
export interface ReplaceSourceInput {
  projectId: number;
  source: string;
  kind: SourceKind;
  documents: IndexedDocument[];
}

export interface ReplaceSourceResult {
  sourceId: number;
  chunkIds: number[];
}

export interface SourceRecord {
  id: number;
  source: string;
  kind: SourceKind;
  /** ISO 8601 with offset. */
  dateAdded: string;
}

/** A chunk waiting for its vector, with the text to embed. */
export interface PendingChunk {
  chunkId: number;
  projectId: number;
  text: string;
}

/**
 * The vectors of a chunk store: which embedder built them, which chunks still need one, and
 * their storage. One store holds one embedder's vectors at a time.
 */
export interface VectorStore {
  meta(): MaybePromise<{ embedderId: string; dimension: number } | undefined>;
  /** Binds the store to an embedder; another one than recorded is `INDEX_MISMATCH`. */
  attach(embedderId: string, dimension: number): MaybePromise<void>;
  /** Drops every vector and binds the store to another embedder (`kbqa reindex`). */
  reset(embedderId: string, dimension: number): MaybePromise<void>;
  countPending(projectId?: number): MaybePromise<number>;
  /** Chunks without a vector, by id after `afterId`. */
  pending(limit: number, afterId: number, projectId?: number): MaybePromise<PendingChunk[]>;
  /** Stores vectors; ids of chunks deleted meanwhile are skipped. */
  store(rows: Array<{ chunkId: number; vector: Float32Array }>): MaybePromise<void>;
  countVectors(projectId?: number): MaybePromise<number>;
}

/**
 * Where chunks live and are searched: the surface the API and the ingestion runner use, so a
 * Postgres + pgvector store can stand in for the SQLite one.
 */
export interface ChunkStore extends Retriever {
  readonly vectors: VectorStore;
  /** Replaces each source's content (all sources in one transaction); vectors of unchanged chunks stay. */
  replaceSources(inputs: ReplaceSourceInput[]): MaybePromise<ReplaceSourceResult[]>;
  /** Removes a source with its chunks, index rows and vectors; returns how many sources went. */
  deleteSource(projectId: number, source: string): MaybePromise<number>;
  /** Removes every source of a project except taught ones; returns how many went. */
  deleteAllSources(projectId: number): MaybePromise<number>;
  listSources(projectId: number): MaybePromise<SourceRecord[]>;
  countChunks(projectId: number): MaybePromise<number>;
  /** A short step of index upkeep between writes (FTS5 segment merging for SQLite). */
  maintain(): MaybePromise<void>;
}
