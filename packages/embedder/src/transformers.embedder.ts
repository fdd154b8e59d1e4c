import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { KbqaError, type Embedder, type Reranker } from '@kbqa/core';
import { modelUnavailable } from './model-errors';
import { type Pooling, resolveEmbedding } from './model-profiles';
import type { EmbedDtype, FromWorker, ModelProgress, ToWorker, WorkerSettings } from './worker-protocol';

export interface TransformersEmbedderOptions {
  /** Hub id (`Xenova/all-MiniLM-L6-v2`) or an absolute path to a local model folder. */
  model: string;
  /** Model cache: downloads land in `<modelsDir>/<id>/`, and hub ids are looked up there first. */
  modelsDir: string;
  /** Never touch the network; the model must already be in `modelsDir` or a local folder. */
  offline: boolean;
  /**
   * `q8` reads `onnx/model_quantized.onnx`, `fp32` reads `onnx/model.onnx`. Default `q8`. When
   * the model has only the other file, that one is used and the id says which.
   */
  dtype?: EmbedDtype;
  /** Texts per forward pass during ingestion. Default 32. */
  batchSize?: number;
  /** Prepended to query texts (e5 wants `query: `). Default from the model table, else none. */
  queryPrefix?: string;
  /** Prepended to passage texts (e5 wants `passage: `). Default from the model table, else none. */
  passagePrefix?: string;
  /** Token pooling. Default from the model table (`model-profiles.ts`), else `mean`. */
  pooling?: Pooling;
  /** Normalize vectors. Default from the model table, else true. */
  normalize?: boolean;
  /**
   * Cross-encoder to load in the same worker after the embedder (hub id or local folder). It
   * never delays or fails the embedder; see {@link TransformersEmbedder.rerankerReady}.
   */
  rerankModel?: string;
  /** Load only `rerankModel` (pulling a reranker); `embed` then fails. */
  rerankOnly?: boolean;
  /** Model hub address, for a mirror. Default the Hugging Face Hub. */
  remoteHost?: string;
  /** Compiled worker script. Default `embed.worker.js` beside this file (in `dist`). */
  workerPath?: string;
  /** Download and load progress, for a command line progress bar. */
  onProgress?: (progress: ModelProgress) => void;
  /**
   * How the user runs kbqa's command line (`kbqa`, `pnpm kbqa`, `./kbqa-linux-x64`), named in
   * messages that tell them what to run. Default `kbqa`.
   */
  command?: string;
}

interface Job {
  texts: string[];
  /** Set for rerank jobs: the query the texts are scored against. */
  query?: string;
  /** Rerank jobs still queued after this time (epoch ms) are dropped: their caller gave up. */
  deadline?: number;
  resolve(result: Float32Array[] | number[]): void;
  reject(error: KbqaError): void;
}

/** How the reranker of an embedder stands. */
export type RerankerStatus =
  { status: 'off' | 'loading' | 'ready' } | { status: 'unavailable'; reason: string };

/**
 * Embeds with a transformers.js `feature-extraction` pipeline (pooling, normalization and
 * prefixes from the model table, `model-profiles.ts`) in a worker thread, so inference never blocks the event loop. One batch runs at a time; batches of a
 * call come back in order, and queries overtake queued ingestion batches so a search made while
 * a source is being ingested waits for at most one batch.
 */
export class TransformersEmbedder implements Embedder {
  readonly id: string;
  private readonly batchSize: number;
  private readonly queryPrefix: string;
  private readonly passagePrefix: string;
  private rerankStatus: RerankerStatus;
  private readonly rerankSettled: Promise<RerankerStatus>;
  private settleRerank: (status: RerankerStatus) => void = () => undefined;
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
    resolved: ResolvedSettings,
    dtype: EmbedDtype,
  ) {
    this.id = embedderId(options.model, dtype, resolved);
    this.batchSize = Math.max(1, options.batchSize ?? 32);
    this.queryPrefix = resolved.queryPrefix;
    this.passagePrefix = resolved.passagePrefix;
    this.rerankStatus = { status: options.rerankModel === undefined ? 'off' : 'loading' };
    this.rerankSettled = new Promise((resolve) => (this.settleRerank = resolve));
    if (options.rerankModel === undefined) this.settleRerank(this.rerankStatus);
    worker.on('message', (message: FromWorker) => this.onMessage(message));
    worker.on('error', (error) => this.fail(`the embedding worker failed: ${error.message}`));
    worker.on('exit', (code) => this.fail(`the embedding worker stopped unexpectedly (exit code ${code})`));
  }

  /**
   * Starts a worker and loads the model in it.
   * @throws KbqaError `MODEL_UNAVAILABLE`, with a message saying how to provide the model.
   */
  static async load(options: TransformersEmbedderOptions): Promise<TransformersEmbedder> {
    const resolved = resolveSettings(options);
    const settings: WorkerSettings = {
      model: options.rerankOnly ? undefined : options.model,
      pooling: resolved.pooling,
      normalize: resolved.normalize,
      rerankModel: options.rerankModel,
      modelsDir: options.modelsDir,
      offline: options.offline,
      dtype: options.dtype ?? 'q8',
      remoteHost: options.remoteHost,
      reportProgress: options.onProgress !== undefined,
    };
    const worker = new Worker(options.workerPath ?? path.join(__dirname, 'embed.worker.js'), {
      workerData: settings,
    });
    // Rerank load results that arrive before the instance listens (a reranker without embedder).
    const early: FromWorker[] = [];
    const { dimension, dtype } = await new Promise<{ dimension: number; dtype: EmbedDtype }>(
      (resolve, reject) => {
        const cleanup = (): void => {
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
        };
        const failWith = (reason: string): void => {
          cleanup();
          reject(modelUnavailable(options.model, reason, options.modelsDir, 'embedding', options.command));
          void worker.terminate();
        };
        const onMessage = (message: FromWorker): void => {
          if (message.type === 'progress') options.onProgress?.(message.progress);
          else if (message.type === 'rerank-ready' || message.type === 'rerank-load-failed')
            early.push(message);
          else if (message.type === 'load-failed') failWith(message.reason);
          else if (message.type === 'ready') {
            cleanup();
            resolve({ dimension: message.dimension, dtype: message.dtype });
          }
        };
        const onError = (error: Error): void => failWith(error.message);
        const onExit = (code: number): void =>
          failWith(`the embedding worker stopped while loading (exit code ${code})`);
        worker.on('message', onMessage);
        worker.on('error', onError);
        worker.on('exit', onExit);
      },
    );
    const embedder = new TransformersEmbedder(worker, dimension, options, resolved, dtype);
    for (const message of early) embedder.onMessage(message);
    return embedder;
  }

  /** Whether the embedding model is one of the table (`model-profiles.ts`) or handled by the fallback. */
  get knownModel(): boolean {
    return resolveSettings(this.options).known;
  }

  async embed(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array[]> {
    this.checkOpen();
    const prefix = kind === 'query' ? this.queryPrefix : this.passagePrefix;
    const input = prefix ? texts.map((t) => prefix + t) : texts;
    const queue = kind === 'query' ? this.queries : this.passages;
    const batches: Promise<Float32Array[]>[] = [];
    for (let start = 0; start < input.length; start += this.batchSize) {
      const batch = input.slice(start, start + this.batchSize);
      batches.push(
        new Promise((resolve, reject) =>
          queue.push({ texts: batch, resolve: (r) => resolve(r as Float32Array[]), reject }),
        ),
      );
    }
    this.dispatch();
    return (await Promise.all(batches)).flat();
  }

  get rerankerStatus(): RerankerStatus {
    return this.rerankStatus;
  }

  /** Resolves once the reranker has loaded or failed (`off` at once without one). */
  rerankerReady(): Promise<RerankerStatus> {
    return this.rerankSettled;
  }

  /** The reranker once it is ready, otherwise undefined. */
  reranker(): Reranker | undefined {
    if (this.rerankStatus.status !== 'ready' || this.options.rerankModel === undefined) return undefined;
    return {
      id: this.options.rerankModel,
      rerank: (query, texts, options) => this.rerank(query, texts, options),
    };
  }

  /**
   * Scores `texts` against `query` with the cross-encoder, ahead of queued ingestion batches.
   * A job still queued at `deadline` is dropped with `TIMEOUT` rather than run for nobody.
   */
  rerank(query: string, texts: string[], options: { deadline?: number } = {}): Promise<number[]> {
    this.checkOpen();
    if (this.rerankStatus.status !== 'ready') {
      return Promise.reject(new KbqaError('MODEL_UNAVAILABLE', `No reranker is ready in ${this.id}`));
    }
    if (texts.length === 0) return Promise.resolve([]);
    const promise = new Promise<number[]>((resolve, reject) =>
      this.queries.push({
        texts,
        query,
        deadline: options.deadline,
        resolve: (r) => resolve(r as number[]),
        reject,
      }),
    );
    this.dispatch();
    return promise;
  }

  private checkOpen(): void {
    if (this.failure) throw this.failure;
    if (this.closing) throw new KbqaError('ABORTED', `Embedder ${this.id} is closed`);
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.rerankStatus.status === 'loading') {
      this.rerankStatus = { status: 'unavailable', reason: 'closed' };
      this.settleRerank(this.rerankStatus);
    }
    this.rejectAll(new KbqaError('ABORTED', `Embedder ${this.id} was closed`));
    await this.worker.terminate();
  }

  private dispatch(): void {
    if (this.inFlight || this.failure) return;
    let job = this.queries.shift() ?? this.passages.shift();
    while (job?.deadline !== undefined && Date.now() > job.deadline) {
      job.reject(new KbqaError('TIMEOUT', 'the rerank budget ran out before the reranker was free'));
      job = this.queries.shift() ?? this.passages.shift();
    }
    if (!job) return;
    const id = this.nextId++;
    this.inFlight = { id, job };
    const message: ToWorker =
      job.query === undefined
        ? { type: 'embed', id, texts: job.texts }
        : { type: 'rerank', id, query: job.query, texts: job.texts, deadline: job.deadline };
    this.worker.postMessage(message);
  }

  private onMessage(message: FromWorker): void {
    if (message.type === 'rerank-ready') {
      this.rerankStatus = { status: 'ready' };
      this.settleRerank(this.rerankStatus);
      return;
    }
    if (message.type === 'rerank-load-failed') {
      this.rerankStatus = { status: 'unavailable', reason: message.reason };
      this.settleRerank(this.rerankStatus);
      return;
    }
    if (message.type === 'scores') {
      const current = this.inFlight;
      if (current?.id !== message.id) return;
      this.inFlight = undefined;
      current.job.resolve(message.scores);
      this.dispatch();
      return;
    }
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
      current.job.reject(
        message.timedOut
          ? new KbqaError('TIMEOUT', message.reason)
          : new KbqaError('INTERNAL', `Embedding with ${this.id} failed: ${message.reason}`),
      );
    }
    this.dispatch();
  }

  private fail(reason: string): void {
    if (this.rerankStatus.status === 'loading') {
      this.rerankStatus = { status: 'unavailable', reason };
      this.settleRerank(this.rerankStatus);
    }
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

interface ResolvedSettings {
  pooling: Pooling;
  normalize: boolean;
  queryPrefix: string;
  passagePrefix: string;
  known: boolean;
}

/** Options first, then the model table; a local folder is looked up by its last two path parts. */
function resolveSettings(options: TransformersEmbedderOptions): ResolvedSettings {
  let table = resolveEmbedding(options.model);
  if (!table.known && path.isAbsolute(options.model)) {
    table = resolveEmbedding(options.model.split(path.sep).slice(-2).join('/'));
  }
  return {
    pooling: options.pooling ?? table.pooling,
    normalize: options.normalize ?? table.normalize,
    queryPrefix: options.queryPrefix ?? table.queryPrefix,
    passagePrefix: options.passagePrefix ?? table.documentPrefix,
    known: table.known,
  };
}

/**
 * The id recorded in the vector index: model and quantization, plus whatever else changes the
 * stored vectors (pooling other than mean, no normalization, a document prefix). An index built
 * before the model table existed (mean pooling, no prefix) so reads as built by another model
 * when the table changes how that model is used, and the service asks for a reindex.
 */
function embedderId(model: string, dtype: EmbedDtype, s: ResolvedSettings): string {
  const tags = [
    ...(s.pooling === 'mean' ? [] : [s.pooling]),
    ...(s.normalize ? [] : ['raw']),
    ...(s.passagePrefix ? ['doc-prefix'] : []),
  ];
  return `${model}@${dtype}${tags.map((t) => `+${t}`).join('')}`;
}
