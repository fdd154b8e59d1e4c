import { Controller, Get, Inject } from '@nestjs/common';
import type { LocalModelStatus } from '@kbqa/answer';
import type { AnswerGenerator } from '@kbqa/core';
import { ANSWER_GENERATOR, localModelHealth } from '../answer/answer.module';
import { KeyAccess } from '../common/auth';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { INGESTION_QUEUE, type IngestionQueue, type QueueHealth } from '../ingestion/ingestion-queue';
import { EmbeddingService, type RetrievalMode } from '../retrieval/embedding.service';
import { type DiskHealth, DiskSpace } from './disk-space';

export interface HealthResponse {
  /**
   * `degraded` while the queue cannot take tasks or the data directory's disk is full (chat and
   * search still answer; the details say which).
   */
  status: 'ok' | 'degraded';
  version: string;
  /** Where records, sources and chunks live: `postgres` with KBQA_DATABASE_URL, else `sqlite`. */
  store: 'sqlite' | 'postgres';
  retrieval: RetrievalMode;
  /**
   * Why retrieval is lexical though a model is configured: the index holds another model's vectors,
   * or the store is lexical-only (PostgreSQL without pgvector).
   */
  retrieval_detail?: string;
  /** Only with KBQA_RERANK_MODEL set: whether the reranker is in use. */
  reranker?: 'loading' | 'ready' | 'unavailable';
  queue: IngestionQueue['kind'];
  queue_state: QueueHealth['state'];
  queue_detail?: string;
  /** `full` when the data directory's disk has (nearly) no space left, or a write just failed for it. */
  disk_state: DiskHealth['state'];
  disk_detail?: string;
  /**
   * Only with KBQA_LLM=local: the model, its state (`unavailable` with the reason in `detail`,
   * chat then answers extractively) and the answers running and waiting.
   */
  llm?: LocalModelStatus;
}

@Controller()
@KeyAccess('public')
export class HealthController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(INGESTION_QUEUE) private readonly queue: IngestionQueue,
    private readonly embedding: EmbeddingService,
    private readonly disk: DiskSpace,
    @Inject(ANSWER_GENERATOR) private readonly generator: AnswerGenerator,
  ) {}

  @Get('health')
  async health(): Promise<HealthResponse> {
    const [queue, disk] = await Promise.all([this.queue.health(), this.disk.health()]);
    const retrieval = this.embedding.retrievalMode();
    const mismatch = retrieval === 'lexical' ? this.embedding.indexMismatch : undefined;
    const reranker = this.embedding.rerankerStatus;
    const llm = localModelHealth(this.generator, this.config);
    return {
      status: queue.state === 'ok' && disk.state === 'ok' ? 'ok' : 'degraded',
      version: this.config.version,
      store: this.config.databaseUrl ? 'postgres' : 'sqlite',
      retrieval,
      ...(mismatch ? { retrieval_detail: mismatch } : {}),
      ...(reranker !== 'off' ? { reranker } : {}),
      queue: this.queue.kind,
      queue_state: queue.state,
      ...(queue.detail ? { queue_detail: queue.detail } : {}),
      disk_state: disk.state,
      ...(disk.detail ? { disk_detail: disk.detail } : {}),
      ...(llm ? { llm } : {}),
    };
  }
}
