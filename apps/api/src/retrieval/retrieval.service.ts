import { Injectable } from '@nestjs/common';
import type { MetadataCondition, SearchHit } from '@kbqa/core';
import { SqliteChunkIndex } from '@kbqa/store-sqlite';
import { EmbeddingService } from './embedding.service';

export interface RetrieveRequest {
  projectId: number;
  question: string;
  topK: number;
  filters: MetadataCondition[];
  /** Drops hits scoring below it; 1 drops all (SPEC.md). */
  threshold: number;
}

/** Finds the passages for a question: hybrid when a model is ready, lexical otherwise. */
@Injectable()
export class RetrievalService {
  constructor(
    private readonly index: SqliteChunkIndex,
    private readonly embedding: EmbeddingService,
  ) {}

  async retrieve(request: RetrieveRequest): Promise<SearchHit[]> {
    if (request.threshold >= 1) return [];
    const vector = await this.embedding.embedQuery(request.question);
    const hits = await this.index.search({
      projectId: request.projectId,
      text: request.question,
      vector,
      topK: request.topK,
      filters: request.filters,
      mode: vector ? 'hybrid' : 'lexical',
    });
    return hits.filter((h) => h.score >= request.threshold);
  }
}
