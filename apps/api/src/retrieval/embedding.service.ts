import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { ChunkStore, Embedder, EmbedderState, VectorStore } from '@kbqa/core';
import { KbqaError } from '@kbqa/core';
import { EmbedderHost } from '@kbqa/embedder';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { CHUNK_STORE } from '../database/database.module';
import { embedPending } from './embed-pending';
import type { RerankSettings } from './rerank';

export type RetrievalMode = 'lexical' | 'hybrid';

/** How often a service whose index belongs to another model looks again (after a reindex). */
const MISMATCH_RECHECK_MS = 5_000;

/**
 * Owns the embedding model for the process. Start-up never waits for it: the model loads in the
 * background and retrieval is lexical until it is ready and matches the index; then earlier
 * chunks are embedded in the background (in processes that run workers) and retrieval is
 * hybrid. A model that cannot load, or an index built by another model, leaves the service
 * lexical with one log line saying what to do.
 */
@Injectable()
export class EmbeddingService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Embedding');
  private readonly host: EmbedderHost;
  private readonly vectors: VectorStore;
  private attached: Embedder | undefined;
  private mismatch: { embedder: Embedder; checkedAt: number } | undefined;
  private mismatchMessage: string | undefined;
  private readonly stopping = new AbortController();
  private backfill: Promise<void> | undefined;
  private attaching: Promise<void> | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CHUNK_STORE) store: ChunkStore,
  ) {
    this.vectors = store.vectors;
    this.host = new EmbedderHost({
      model: config.embedding.model,
      modelsDir: config.embedding.modelsDir,
      offline: config.embedding.offline,
      remoteHost: config.embedding.remoteHost,
      rerankModel: config.embedding.rerank.model,
      command: config.command,
      logger: this.logger,
    });
  }

  onApplicationBootstrap(): void {
    this.host.onReady((embedder) => {
      this.attaching = this.attach(embedder);
    });
    this.host.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await this.backfill;
    await this.host.close();
  }

  /** Chunks this process has embedded since it started (tests and benchmarks count them). */
  embeddedChunks = 0;

  /** The model's state, for /health and logs. */
  get state(): EmbedderState {
    return this.host.state;
  }

  retrievalMode(): RetrievalMode {
    return this.ready() ? 'hybrid' : 'lexical';
  }

  /** The reranker with its settings once it is ready; undefined leaves the fused order. */
  reranking(): RerankSettings | undefined {
    const reranker = this.host.reranker();
    if (!reranker) return undefined;
    const { top, budgetMs } = this.config.embedding.rerank;
    return { reranker, top, budgetMs };
  }

  /** The reranker's state for /health: off, loading, ready or unavailable. */
  get rerankerStatus(): 'off' | 'loading' | 'ready' | 'unavailable' {
    return this.host.rerankerState.status;
  }

  /**
   * Why retrieval is lexical though a model is ready: the index holds another model's vectors,
   * or the store has no vectors at all (PostgreSQL without pgvector). Undefined otherwise.
   */
  get indexMismatch(): string | undefined {
    return this.attached ? undefined : this.mismatchMessage;
  }

  /** Resolves once the model has loaded or failed (tests and benchmarks wait on it). */
  async settled(): Promise<RetrievalMode> {
    await this.host.settled();
    await this.attaching;
    return this.retrievalMode();
  }

  /** The query vector when hybrid retrieval is live; undefined means lexical retrieval. */
  async embedQuery(text: string): Promise<Float32Array | undefined> {
    const embedder = this.ready();
    if (!embedder) return undefined;
    try {
      const [vector] = await embedder.embed([text], 'query');
      return vector;
    } catch (error) {
      this.logger.warn(`query embedding failed, answering lexically: ${KbqaError.from(error).message}`);
      return undefined;
    }
  }

  /**
   * Embeds an ingestion task's chunks (those not carried over from unchanged content) when a
   * model is ready, reporting progress. Without a model it does nothing: the chunks are found
   * lexically now and embedded by the backfill once a model is ready.
   */
  async embedChunks(
    chunkIds: number[],
    signal: AbortSignal,
    progress: (current: number, total: number) => Promise<void>,
  ): Promise<void> {
    const embedder = this.ready();
    if (!embedder || chunkIds.length === 0) return;
    try {
      this.embeddedChunks += await embedPending(embedder, this.vectors, {
        chunkIds: new Set(chunkIds),
        signal,
        onProgress: progress,
      });
    } catch (error) {
      if (signal.aborted) throw error;
      // The text is indexed already; a failing model must not fail the task. The backfill retries.
      this.logger.warn(`embedding failed, chunks stay lexical for now: ${KbqaError.from(error).message}`);
    }
  }

  private ready(): Embedder | undefined {
    if (this.attached) return this.attached;
    if (this.mismatch && Date.now() - this.mismatch.checkedAt > MISMATCH_RECHECK_MS) {
      const { embedder } = this.mismatch;
      this.mismatch = undefined;
      // Hybrid from the next request on if the index now matches (after `kbqa reindex`).
      this.attaching = this.attach(embedder, { quiet: true });
    }
    return this.attached;
  }

  private async attach(embedder: Embedder, options: { quiet?: boolean } = {}): Promise<void> {
    try {
      await this.vectors.attach(embedder.id, embedder.dimension);
    } catch (error) {
      const e = KbqaError.from(error);
      if (e.code === 'INDEX_MISMATCH') {
        this.mismatchMessage = e.message;
        if (!options.quiet) this.logger.error(`${e.message} Until then, retrieval is lexical.`);
      } else {
        // UNSUPPORTED: a PostgreSQL store without pgvector; /health says why retrieval is lexical.
        if (e.code === 'UNSUPPORTED') this.mismatchMessage = e.message;
        this.logger.error(`could not use the vector index, retrieval stays lexical: ${e.message}`);
      }
      this.mismatch = { embedder, checkedAt: Date.now() };
      return;
    }
    this.attached = embedder;
    if (this.config.runWorkers) this.backfill = this.runBackfill(embedder);
  }

  /** Embeds chunks stored before the model was ready (or by a process without one). */
  private async runBackfill(embedder: Embedder): Promise<void> {
    const pending = await this.vectors.countPending();
    if (pending === 0) return;
    this.logger.log(`embedding ${pending} earlier chunks in the background`);
    try {
      const done = await embedPending(embedder, this.vectors, { signal: this.stopping.signal });
      this.embeddedChunks += done;
      this.logger.log(`background embedding finished (${done} chunks)`);
    } catch (error) {
      if (this.stopping.signal.aborted) return;
      this.logger.warn(`background embedding stopped: ${KbqaError.from(error).message}`);
    }
  }
}
