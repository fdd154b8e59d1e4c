import type { Embedder, EmbedderState, Reranker } from '@kbqa/core';
import { KbqaError } from '@kbqa/core';
import {
  type RerankerStatus,
  TransformersEmbedder,
  type TransformersEmbedderOptions,
} from './transformers.embedder';

/** What the host uses of a loaded embedder; fakes may leave out the reranker and the table check. */
export type HostedEmbedder = Embedder &
  Partial<Pick<TransformersEmbedder, 'reranker' | 'rerankerReady' | 'knownModel'>>;

/** The part of a logger the host needs; NestJS's `Logger` fits. */
export interface EmbedderLogger {
  warn(message: string): void;
  log?(message: string): void;
}

export interface EmbedderHostOptions extends Omit<TransformersEmbedderOptions, 'model'> {
  /** Hub id, absolute local folder, or `none` to run with lexical search only. */
  model: string;
  logger?: EmbedderLogger;
  /** Builds the embedder. Default {@link TransformersEmbedder.load}; tests hand in fakes. */
  load?: (options: TransformersEmbedderOptions) => Promise<HostedEmbedder>;
}

/**
 * Owns the embedding model for the service: `start()` returns at once and loads in the
 * background, so a missing or slow model never delays start-up; until it is ready, `get()`
 * returns undefined and search falls back to lexical.
 */
export class EmbedderHost {
  private current: EmbedderState;
  private embedder: HostedEmbedder | undefined;
  private rerank: RerankerStatus;
  private started: Promise<void> | undefined;
  private closed = false;
  private readonly listeners = new Set<(state: EmbedderState) => void>();

  constructor(private readonly options: EmbedderHostOptions) {
    this.current = this.disabled ? { status: 'disabled' } : { status: 'loading', model: options.model };
    this.rerank = { status: options.rerankModel === undefined ? 'off' : 'loading' };
  }

  /** The reranker's state: `off` without `rerankModel`; it loads after the embedder. */
  get rerankerState(): RerankerStatus {
    return this.rerank;
  }

  /** The reranker once it is ready, otherwise undefined (retrieval then keeps the fused order). */
  reranker(): Reranker | undefined {
    return this.rerank.status === 'ready' ? this.embedder?.reranker?.() : undefined;
  }

  get state(): EmbedderState {
    return this.current;
  }

  /** The embedder once ready, otherwise undefined. */
  get(): Embedder | undefined {
    return this.embedder;
  }

  /** Begins loading in the background; calling it again does nothing. */
  start(): void {
    if (this.started) return;
    if (this.disabled) {
      if (this.rerank.status === 'loading')
        this.rerankUnavailable('it runs in the embedding worker and KBQA_EMBED_MODEL is none');
      return;
    }
    this.started = this.load();
  }

  /** Resolves with the state once loading has finished (ready, unavailable or disabled). */
  async settled(): Promise<EmbedderState> {
    await this.started;
    return this.current;
  }

  /** Calls `listener` on every state change; returns the unsubscribe function. */
  onStateChange(listener: (state: EmbedderState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls `listener` once with the embedder when it is ready (at once if it already is). */
  onReady(listener: (embedder: Embedder) => void): void {
    if (this.embedder) {
      listener(this.embedder);
      return;
    }
    const off = this.onStateChange(() => {
      if (!this.embedder) return;
      off();
      listener(this.embedder);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    // Closed first, so shutdown does not wait for a reranker still downloading.
    const ready = this.embedder;
    this.embedder = undefined;
    await ready?.close();
    await this.started;
    const late = this.embedder as HostedEmbedder | undefined;
    this.embedder = undefined;
    await late?.close();
  }

  private get disabled(): boolean {
    return this.options.model.trim().toLowerCase() === 'none';
  }

  private async load(): Promise<void> {
    const { logger, load, ...embedderOptions } = this.options;
    const model = embedderOptions.model;
    try {
      const embedder = await (load ?? ((o) => TransformersEmbedder.load(o)))(embedderOptions);
      if (this.closed) {
        await embedder.close();
        return;
      }
      this.embedder = embedder;
      logger?.log?.(`Embedding model ${embedder.id} ready (${embedder.dimension} dimensions)`);
      if (embedder.knownModel === false) {
        logger?.log?.(
          `Embedding model "${model}" is not in kbqa's model table (docs/configuration.md): using mean ` +
            'pooling, normalized vectors and no query or document prefix',
        );
      }
      this.setState({ status: 'ready', model, dimension: embedder.dimension });
    } catch (error) {
      const reason = KbqaError.from(error).message;
      logger?.warn(
        reason.includes(model) ? reason : `Embedding model "${model}" is not available: ${reason}`,
      );
      this.setState({ status: 'unavailable', model, reason });
      this.rerankUnavailable('the embedding model it runs beside did not load');
      return;
    }
    await this.loadReranker();
  }

  private async loadReranker(): Promise<void> {
    const { rerankModel, logger } = this.options;
    if (rerankModel === undefined) return;
    const status = (await this.embedder?.rerankerReady?.()) ?? {
      status: 'unavailable' as const,
      reason: 'this embedder cannot rerank',
    };
    if (this.closed) return;
    if (status.status === 'unavailable') {
      this.rerankUnavailable(status.reason);
      return;
    }
    this.rerank = status;
    if (status.status === 'ready') logger?.log?.(`Reranking model ${rerankModel} ready`);
  }

  /** One warning, then retrieval goes on in the fused order. */
  private rerankUnavailable(reason: string): void {
    const { rerankModel, logger, command = 'kbqa' } = this.options;
    if (rerankModel === undefined) return;
    this.rerank = { status: 'unavailable', reason };
    logger?.warn(
      `Reranking model "${rerankModel}" is not available (${reason}); results keep the fused order. ` +
        `To provide it, run \`${command} models pull ${rerankModel}\` on a machine with network access, ` +
        'or unset KBQA_RERANK_MODEL.',
    );
  }

  private setState(state: EmbedderState): void {
    this.current = state;
    for (const listener of [...this.listeners]) listener(state);
  }
}
