import { Controller, Get, Inject } from '@nestjs/common';
import type { LocalModelStatus } from '@kbqa/answer';
import type { AnswerGenerator } from '@kbqa/core';
import { ANSWER_GENERATOR, localModelHealth } from '../answer/answer.module';
import { KeyAccess } from '../common/auth';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { INGESTION_QUEUE, type IngestionQueue, type QueueHealth } from '../ingestion/ingestion-queue';
import { EmbeddingService, type RetrievalMode } from '../retrieval/embedding.service';

export interface HealthResponse {
  /** `degraded` while the queue cannot take tasks (chat and search still answer). */
  status: 'ok' | 'degraded';
  version: string;
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
    @Inject(ANSWER_GENERATOR) private readonly generator: AnswerGenerator,
  ) {}

  @Get('health')
  async health(): Promise<HealthResponse> {
    const queue = await this.queue.health();
    const retrieval = this.embedding.retrievalMode();
    const mismatch = retrieval === 'lexical' ? this.embedding.indexMismatch : undefined;
    const reranker = this.embedding.rerankerStatus;
    const llm = localModelHealth(this.generator, this.config);
    return {
      status: queue.state === 'ok' ? 'ok' : 'degraded',
      version: this.config.version,
      retrieval,
      ...(mismatch ? { retrieval_detail: mismatch } : {}),
      ...(reranker !== 'off' ? { reranker } : {}),
      queue: this.queue.kind,
      queue_state: queue.state,
      ...(queue.detail ? { queue_detail: queue.detail } : {}),
      ...(llm ? { llm } : {}),
    };
  }
}
