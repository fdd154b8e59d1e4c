import { Controller, Get, Inject } from '@nestjs/common';
import { KeyAccess } from '../common/auth';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { INGESTION_QUEUE, type IngestionQueue } from '../ingestion/ingestion-queue';
import { EmbeddingService, type RetrievalMode } from '../retrieval/embedding.service';

export interface HealthResponse {
  status: 'ok';
  version: string;
  retrieval: RetrievalMode;
  queue: IngestionQueue['kind'];
}

@Controller()
@KeyAccess('public')
export class HealthController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(INGESTION_QUEUE) private readonly queue: IngestionQueue,
    private readonly embedding: EmbeddingService,
  ) {}

  @Get('health')
  health(): HealthResponse {
    return {
      status: 'ok',
      version: this.config.version,
      retrieval: this.embedding.retrievalMode(),
      queue: this.queue.kind,
    };
  }
}
