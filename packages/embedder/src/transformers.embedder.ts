import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { KbqaError, type Embedder } from '@kbqa/core';
import { modelUnavailable } from './model-errors';
import type { EmbedDtype, FromWorker, ModelProgress, ToWorker, WorkerSettings } from './worker-protocol';

export interface TransformersEmbedderOptions {
  /** Hub id (`Xenova/all-MiniLM-L6-v2`) or an absolute path to a local model folder. */
  model: string;
  /** Model cache: downloads land in `<modelsDir>/<id>/`, and hub ids are looked up there first. */
  modelsDir: string;
  /** Never touch the network; the model must already be in `modelsDir` or a local folder. */
  offline: boolean;
  /** `q8` reads `onnx/model_quantized.onnx`, `fp32` reads `onnx/model.onnx`. Default `q8`. */
  dtype?: EmbedDtype;
  /** Texts per forward pass during ingestion. Default 32. */
  batchSize?: number;
  /** Prepended to query texts (e5-style models want `query: `). Default none. */
  queryPrefix?: string;
  /** Prepended to passage texts (e5-style models want `passage: `). Default none. */
  passagePrefix?: string;
  /** Model hub address, for a mirror. Default the Hugging Face Hub. */
  remoteHost?: string;
  /** Compiled worker script. Default `embed.worker.js` beside this file (in `dist`). */
  workerPath?: string;
  /** Download and load progress, for a command line progress bar. */
  onProgress?: (progress: ModelProgress) => void;
}

interface Job {
  texts: string[];
  resolve(vectors: Float32Array[]): void;
  reject(error: KbqaError): void;
}

/**
 * Embeds with a transformers.js `feature-extraction` pipeline (mean pooling, normalized) in a
 * worker thread, so inference never blocks the event loop. One batch runs at a time; batches of a
 * call come back in order, and queries overtake queued ingestion batches so a search made while
 * a source is being ingested waits for at most one batch.
 */
export class TransformersEmbedder implements Embedder {
  readonly id: string;
  private readonly batchSize: number;
  private readonly queries: Job[] = [];
  private readonly passages: Job[] = [];
  private inFlight: { id: number; job: Job } | undefined;
  private nextId = 1;
  private failure: KbqaError | undefined;
  private closing = false;

  private constructor(
    private readonly worker: Worker,
    readonly dimension: number,
    private readonly options: TransformersEmbedderOptions,
  ) {
    this.id = `${options.model}@${options.dtype ?? 'q8'}`;
    this.batchSize = Math.max(1, options.batchSize ?? 32);
    worker.on('message', (message: FromWorker) => this.onMessage(message));
    worker.on('error', (error) => this.fail(`the embedding worker failed: ${error.message}`));
    worker.on('exit', (code) => this.fail(`the embedding worker stopped unexpectedly (exit code ${code})`));
  }

  /**
   * Starts a worker and loads the model in it.
   * @throws KbqaError `MODEL_UNAVAILABLE`, with a message saying how to provide the model.
   */
  static async load(options: TransformersEmbedderOptions): Promise<TransformersEmbedder> {
    const settings: WorkerSettings = {
      model: options.model,
      modelsDir: options.modelsDir,
      offline: options.offline,
      dtype: options.dtype ?? 'q8',
      remoteHost: options.remoteHost,
      reportProgress: options.onProgress !== undefined,
    };
    const worker = new Worker(options.workerPath ?? path.join(__dirname, 'embed.worker.js'), {
      workerData: settings,
    });
    const dimension = await new Promise<number>((resolve, reject) => {
      const cleanup = (): void => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const failWith = (reason: string): void => {
        cleanup();
        reject(modelUnavailable(options.model, reason, options.modelsDir));
        void worker.terminate();
      };
      const onMessage = (message: FromWorker): void => {
        if (message.type === 'progress') options.onProgress?.(message.progress);
        else if (message.type === 'load-failed') failWith(message.reason);
        else if (message.type === 'ready') {
          cleanup();
          resolve(message.dimension);
        }
      };
      const onError = (error: Error): void => failWith(error.message);
      const onExit = (code: number): void =>
        failWith(`the embedding worker stopped while loading (exit code ${code})`);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    });
    return new TransformersEmbedder(worker, dimension, options);
  }

  async embed(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array[]> {
    if (this.failure) throw this.failure;
    if (this.closing) throw new KbqaError('ABORTED', `Embedder ${this.id} is closed`);
    const prefix = (kind === 'query' ? this.options.queryPrefix : this.options.passagePrefix) ?? '';
    const input = prefix ? texts.map((t) => prefix + t) : texts;
    const queue = kind === 'query' ? this.queries : this.passages;
    const batches: Promise<Float32Array[]>[] = [];
    for (let start = 0; start < input.length; start += this.batchSize) {
      const batch = input.slice(start, start + this.batchSize);
      batches.push(new Promise((resolve, reject) => queue.push({ texts: batch, resolve, reject })));
    }
    this.dispatch();
    return (await Promise.all(batches)).flat();
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.rejectAll(new KbqaError('ABORTED', `Embedder ${this.id} was closed`));
    await this.worker.terminate();
  }

  private dispatch(): void {
    if (this.inFlight || this.failure) return;
    const job = this.queries.shift() ?? this.passages.shift();
    if (!job) return;
    const id = this.nextId++;
    this.inFlight = { id, job };
    const message: ToWorker = { type: 'embed', id, texts: job.texts };
    this.worker.postMessage(message);
  }

  private onMessage(message: FromWorker): void {
    if (message.type !== 'vectors' && message.type !== 'embed-failed') return;
    const current = this.inFlight;
    if (current?.id !== message.id) return;
    this.inFlight = undefined;
    if (message.type === 'vectors') {
      // Copies, so each vector owns its buffer (stores serialize `vector.buffer`).
      const vectors: Float32Array[] = [];
      for (let i = 0; i < message.count; i++) {
        vectors.push(message.data.slice(i * this.dimension, (i + 1) * this.dimension));
      }
      current.job.resolve(vectors);
    } else {
      current.job.reject(new KbqaError('INTERNAL', `Embedding with ${this.id} failed: ${message.reason}`));
    }
    this.dispatch();
  }

  private fail(reason: string): void {
    if (this.closing || this.failure) return;
    this.failure = new KbqaError('MODEL_UNAVAILABLE', `Embedder ${this.id} is unavailable: ${reason}`);
    this.rejectAll(this.failure);
  }

  private rejectAll(error: KbqaError): void {
    const jobs = [...(this.inFlight ? [this.inFlight.job] : []), ...this.queries, ...this.passages];
    this.inFlight = undefined;
    this.queries.length = 0;
    this.passages.length = 0;
    for (const job of jobs) job.reject(error);
  }
}
