import type { ChunkDraft, LoadedDocument } from './documents';
import type { PageVersion } from './loader';
import type { Retriever } from './retrieval';

/**
 * A value now or later. The SQLite store answers synchronously (better-sqlite3); a networked
 * store (Postgres + pgvector) answers with promises. Callers always `await`.
 */
export type MaybePromise<T> = T | Promise<T>;

/** How a source got in: raw documents, one of the ingestData types, or the teaching feature. */
export type SourceKind =
  | 'documents'
  | 'teach'
  | 'website-crawler'
  | 'docusaurus'
  | 'github'
  | 'youtube'
  | 'url'
  | 'sitemap'
  | 'openapi'
  /** `ingestFiles` uploads */
  | 'files'
  /** files of a watched folder (a `folder` index) */
  | 'folder';

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
  /** The index (one `ingestData` root) the source belongs to; none for raw documents. */
  indexId?: number | null;
  /** What the next sync of the index compares against (validators, lastmod, blob id, links). */
  version?: PageVersion;
  /** Hash of what the loader yielded for the source ({@link sourceContentHash}). */
  contentHash?: string;
}

/** A source of an index with what a sync compares against. */
export interface IndexedSource {
  id: number;
  source: string;
  contentHash: string | null;
  version: PageVersion;
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
  /** The sources an index brought in, with their versions (a sync compares against them). */
  indexSources(projectId: number, indexId: number): MaybePromise<IndexedSource[]>;
  /** Records that a sync saw a source unchanged: it joins the index, with its new version. */
  keepSource(sourceId: number, indexId: number, version: PageVersion | undefined): MaybePromise<void>;
  /** Removes sources by id with their chunks and vectors; returns how many went. */
  deleteSourcesById(projectId: number, sourceIds: number[]): MaybePromise<number>;
  /** Sources per index of a project (index id → pages). */
  countIndexSources(projectId: number): MaybePromise<Map<number, number>>;
  countChunks(projectId: number): MaybePromise<number>;
  /**
   * The words of `words` that no chunk of the project contains, as the lexical index reads them
   * (stemmed as its tokenizer does: "servers" is found by "server"), in their order. A word
   * the index reads as no term at all (punctuation; a stop word where the index drops them) is
   * never absent.
   */
  absentWords(projectId: number, words: string[]): MaybePromise<string[]>;
  /** The distinct string or number values documents of the project hold in metadata `field`, up to `limit`. */
  metadataValues(projectId: number, field: string, limit: number): MaybePromise<Array<string | number>>;
  /** The value of metadata `field` of each of the project's documents `documentIds` that has one. */
  documentsMetadataField(
    projectId: number,
    documentIds: number[],
    field: string,
  ): MaybePromise<Map<number, string | number>>;
  /** A short step of index upkeep between writes (FTS5 segment merging for SQLite). */
  maintain(): MaybePromise<void>;
}

/** Server keys are for every endpoint; anon keys only for chat. */
export type KeyKind = 'server' | 'anon';

/**
 * Where a conversation was started, for the analytics per channel: `api` a server key
 * (serviceChat, the dashboard's playground), `widget` an anon key, `slack` and `discord` the chat
 * platforms, `mcp` the MCP `ask` tool.
 */
export type Channel = 'api' | 'widget' | 'slack' | 'discord' | 'mcp';

/** Every channel, in the order analytics lists them. */
export const CHANNELS: readonly Channel[] = ['api', 'widget', 'slack', 'discord', 'mcp'];

/** The channel of a conversation a key of kind `kind` started through the HTTP API. */
export function keyChannel(kind: KeyKind): Channel {
  return kind === 'anon' ? 'widget' : 'api';
}

/** A key that is not revoked, as the request path reads it. */
export interface ActiveKey {
  id: number;
  projectId: number;
  kind: KeyKind;
  /** sha256 of the key, hex. */
  keyHash: string;
}

export type Sender = 'Human' | 'AI';

/** A chat message to store. */
export interface NewMessage {
  projectId: number;
  conversationId: number;
  sender: Sender;
  text: string;
  /** For an AI message, the Human message it answers. */
  replyTo: number | null;
  /** The sources used, stored as given. */
  sources: unknown[];
  /** False for an answer cut off by a disconnect. */
  complete: boolean;
  /** Tool calls made for an AI message, stored as given (none when absent). */
  toolsUsed?: unknown[];
  /** For a Human message, the documentation version it asked about (serviceChat's `version`). */
  version?: string | null;
}

/** Filters of the message export: a rating and inclusive UTC days (`YYYY-MM-DD`). */
export interface ExportFilters {
  rating?: number;
  startDate?: string;
  endDate?: string;
}

/** One AI answer of the export with the question it answered (empty when that is gone). */
export interface ExportedPair {
  messageId: number;
  conversationId: number;
  /** When the answer was stored, as stored. */
  timestamp: string;
  humanQuery: string;
  aiResponse: string;
  /** The answer's tool calls as stored: a JSON array. */
  toolsUsed: string;
}

/**
 * The records nearly every request reads or writes: the key lookup, new conversations and
 * messages, and the export that reads them back. They sit behind this contract, apart from the
 * ORM's repositories, because they are the hot path (SQLite answers them with prepared
 * statements) and because a Postgres store answers them in its own SQL dialect.
 */
export interface RequestRecords {
  findActiveKey(keyHash: string): MaybePromise<ActiveKey | undefined>;
  /**
   * Records that a key authenticated at `at` (a stored timestamp). Callers throttle it (about
   * once a minute per key), so it is not a write per request.
   */
  touchKey(keyId: number, at: string): MaybePromise<void>;
  /**
   * Creates a conversation; returns its id. `startedBy` is the kind of key that asked (default
   * `server`): anon keys may act only on conversations an anon key started. `channel` is where it
   * was started (default: the key kind's, {@link keyChannel}).
   */
  createConversation(
    projectId: number,
    roleInfo: string | null,
    startedBy?: KeyKind,
    channel?: Channel,
  ): MaybePromise<number>;
  /**
   * Creates a conversation together with its first message (a chat that starts one stores its
   * question so: one write instead of two, one statement on PostgreSQL); returns both ids.
   */
  startConversation(
    projectId: number,
    roleInfo: string | null,
    first: Omit<NewMessage, 'projectId' | 'conversationId'>,
    startedBy?: KeyKind,
    channel?: Channel,
  ): MaybePromise<{ conversationId: number; messageId: number }>;
  /** Stores a message; returns its id. */
  addMessage(message: NewMessage): MaybePromise<number>;
  /** The project's AI answers matching the filters with their questions, oldest first. */
  exportPairs(projectId: number, filters: ExportFilters): MaybePromise<ExportedPair[]>;
}
