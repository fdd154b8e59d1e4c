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
  model: string;
  modelsDir: string;
  offline: boolean;
  dtype: EmbedDtype;
  remoteHost?: string;
  /** Forward progress events (only wanted while pulling). */
  reportProgress: boolean;
}

export type ToWorker = { type: 'embed'; id: number; texts: string[] };

export type FromWorker =
  | { type: 'ready'; dimension: number }
  | { type: 'load-failed'; reason: string }
  | { type: 'progress'; progress: ModelProgress }
  | { type: 'vectors'; id: number; data: Float32Array; count: number }
  | { type: 'embed-failed'; id: number; reason: string };
