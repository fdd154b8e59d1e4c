import type { AnswerSource, SearchHit, SearchQuery, SerializedError } from '@kbqa/core';
import type { ExtractiveAnswerGeneratorOptions } from '@kbqa/answer';

/** What a worker is started with (`workerData`). */
export interface ReadWorkerData {
  file: string;
  busyTimeoutMs?: number;
  extractive: ExtractiveAnswerGeneratorOptions;
}

/** What the checkpointer is started with. */
export interface CheckpointWorkerData {
  file: string;
  busyTimeoutMs?: number;
  everyMs: number;
}

/** A request from the pool to one worker; `id` pairs it with its reply. */
export type ReadRequest =
  | { id: number; op: 'search'; query: SearchQuery }
  | { id: number; op: 'compose'; question: string; sources: AnswerSource[]; context?: string };

/** What each request gets back. */
export interface ReadResults {
  search: SearchHit[];
  compose: string[];
}

/** A worker's message: ready after opening its connection, then one reply per request. */
export type ReadReply =
  | { type: 'ready' }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'error'; id?: number; error: SerializedError };

/** Tells a worker to close its connection and end. */
export interface CloseMessage {
  op: 'close';
}
