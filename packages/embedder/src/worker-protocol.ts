/** Messages between {@link TransformersEmbedder} and its worker (`embed.worker.ts`). */

export type EmbedDtype = 'q8' | 'fp32';

/**
 * Download or load progress, simplified from transformers.js `progress_callback` events so a
 * command line can draw a bar: `file` events per file, `total` for all files of the model.
 */
export type ModelProgress =
  | { type: 'file'; file: string; status: 'start' | 'done' }
  | { type: 'bytes'; file: string; loaded: number; total: number }
  | { type: 'total'; loaded: number; total: number; percent: number };

export interface WorkerSettings {
  /** Embedding model; undefined loads only the reranker (`models pull` of a reranker). */
  model: string | undefined;
  pooling: 'mean' | 'cls';
  normalize: boolean;
  /** Cross-encoder loaded after the embedder; its failure leaves embedding working. */
  rerankModel?: string;
  modelsDir: string;
  offline: boolean;
  dtype: EmbedDtype;
  remoteHost?: string;
  /** Forward progress events (only wanted while pulling). */
  reportProgress: boolean;
}

export type ToWorker =
  | { type: 'embed'; id: number; texts: string[] }
  | { type: 'rerank'; id: number; query: string; texts: string[]; deadline?: number };

export type FromWorker =
  /** `dtype`: the quantization that loaded (the other one when the wanted file is missing). */
  | { type: 'ready'; dimension: number; dtype: EmbedDtype }
  | { type: 'load-failed'; reason: string }
  | { type: 'rerank-ready' }
  | { type: 'rerank-load-failed'; reason: string }
  | { type: 'scores'; id: number; scores: number[] }
  | { type: 'progress'; progress: ModelProgress }
  | { type: 'vectors'; id: number; data: Float32Array; count: number }
  | { type: 'embed-failed'; id: number; reason: string; timedOut?: boolean };
