import type { AnswerSource, SearchHit, SearchQuery, SerializedError } from '@kbqa/core';
import type { ExtractiveAnswerGeneratorOptions } from '@kbqa/answer';

/** What a worker is started with (`workerData`). */
export interface ReadWorkerData {
  file: string;
  busyTimeoutMs?: number;
  extractive: ExtractiveAnswerGeneratorOptions;
  /**
   * Whether this worker reloads, while idle, the term score lists a write emptied (one worker of
   * the pool does; the others adopt what it loads).
   */
  warmTermLists?: boolean;
}

/** What the checkpointer is started with. */
export interface CheckpointWorkerData {
  file: string;
  busyTimeoutMs?: number;
  everyMs: number;
  /** WAL pages from which it checkpoints (SQLite's own automatic checkpoint: 1000). */
  fromPages: number;
}

/** A request from the pool to one worker; `id` pairs it with its reply. */
export type ReadRequest =
  | { id: number; op: 'search'; query: SearchQuery }
  | {
      id: number;
      op: 'compose';
      question: string;
      sources: AnswerSource[];
      context?: string;
      unknownWords?: string[];
    }
  | { id: number; op: 'stats' };

/** A term score list one worker loaded (shared memory), passed on to the others to adopt. */
export interface TermListMessage {
  key: string;
  generation: number;
  ids: Int32Array;
  scores: Float64Array;
}

/** What a worker tells of itself. */
export interface ReadWorkerStats {
  /** Chunk entries held by its term score lists. */
  termCacheEntries: number;
  /** The chunk change counter its term score lists belong to (null before any was loaded). */
  termListsGeneration: number | null;
}

/** What each request gets back. */
export interface ReadResults {
  search: SearchHit[];
  compose: string[];
  stats: ReadWorkerStats;
}

/** A worker's message: ready after opening its connection, then one reply per request. */
export type ReadReply =
  | { type: 'ready' }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'error'; id?: number; error: SerializedError }
  | ({ type: 'list' } & TermListMessage);

/** Tells a worker to close its connection and end. */
export interface CloseMessage {
  op: 'close';
}

/** A list another worker loaded, for this one to adopt. */
export type AdoptMessage = { op: 'list' } & TermListMessage;
