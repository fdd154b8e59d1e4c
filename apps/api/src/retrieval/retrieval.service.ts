import { Inject, Injectable } from '@nestjs/common';
import type { ChunkStore, MetadataCondition, SearchHit } from '@kbqa/core';
import { CHUNK_STORE } from '../database/database.module';
import { EmbeddingService } from './embedding.service';

export interface RetrieveRequest {
  projectId: number;
  question: string;
  /** Lower-weight topic terms (SearchQuery.context), e.g. the conversation's for a follow-up. */
  context?: string;
  topK: number;
  filters: MetadataCondition[];
  /** Drops hits scoring below it; 1 drops all (SPEC.md). */
  threshold: number;
}

/** Finds the passages for a question: hybrid when a model is ready, lexical otherwise. */
@Injectable()
export class RetrievalService {
  constructor(
    @Inject(CHUNK_STORE) private readonly store: ChunkStore,
    private readonly embedding: EmbeddingService,
  ) {}

  async retrieve(request: RetrieveRequest): Promise<SearchHit[]> {
    if (request.threshold >= 1) return [];
    const vector = await this.embedding.embedQuery(request.question);
    const hits = await this.store.search({
      projectId: request.projectId,
      text: request.question,
      context: request.context,
      vector,
      topK: request.topK,
      filters: request.filters,
      mode: vector ? 'hybrid' : 'lexical',
    });
    return hits.filter((h) => h.score >= request.threshold);
  }
}
