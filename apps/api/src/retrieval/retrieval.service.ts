import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { ChunkStore, MetadataCondition, SearchHit } from '@kbqa/core';
import type { ReadPool } from '@kbqa/read-pool';
import { CHUNK_STORE } from '../database/database.module';
import { READ_POOL } from './read-pool.module';
import { EmbeddingService } from './embedding.service';
import { rerankHits } from './rerank';

export interface RetrieveRequest {
  projectId: number;
  question: string;
  /** Lower-weight topic terms (SearchQuery.context), e.g. the conversation's for a follow-up. */
  context?: string;
  /** What a definition question asks about (SearchQuery.topic). */
  topic?: string;
  /**
   * The part of `question` to search at full weight when only that part is new (a follow-up's new
   * subject, with the rest as `context`); `question` is still what is embedded and reranked.
   */
  focus?: string;
  topK: number;
  filters: MetadataCondition[];
  /** Drops hits scoring below it; 1 drops all (SPEC.md). */
  threshold: number;
}

/**
 * Finds the passages for a question: hybrid when a model is ready, lexical otherwise; with a
 * reranker ready, its order of the first candidates when it answers within its budget. The search
 * runs on the read pool when there is one (the query is embedded here, its vector sent along).
 */
@Injectable()
export class RetrievalService {
  private readonly logger = new Logger('Retrieval');
  private rerankFailures = 0;

  constructor(
    @Inject(CHUNK_STORE) private readonly store: ChunkStore,
    private readonly embedding: EmbeddingService,
    @Optional() @Inject(READ_POOL) private readonly pool: ReadPool | null = null,
  ) {}

  /** The words no chunk of the project has (ChunkStore.absentWords), on the service's connection. */
  async absentWords(projectId: number, words: string[]): Promise<string[]> {
    return words.length === 0 ? [] : await this.store.absentWords(projectId, words);
  }

  async retrieve(request: RetrieveRequest): Promise<SearchHit[]> {
    if (request.threshold >= 1) return [];
    const vector = await this.embedding.embedQuery(request.question);
    const rerank = this.embedding.reranking();
    // Without a live read worker (every one died and none could be started again) the service's
    // own connection searches: slower under load, but chat keeps answering.
    const reader = this.pool && this.pool.size > 0 ? this.pool : this.store;
    let hits = await reader.search({
      projectId: request.projectId,
      text: request.focus ?? request.question,
      context: request.context,
      topic: request.topic,
      vector,
      // The reranker reads its `top` candidates even when fewer results are wanted.
      topK: rerank ? Math.max(request.topK, rerank.top) : request.topK,
      filters: request.filters,
      mode: vector ? 'hybrid' : 'lexical',
    });
    if (rerank) {
      const result = await rerankHits(request.question, hits, rerank);
      hits = result.hits.slice(0, request.topK);
      // A reranker that fails every query would flood the log; the first failure says enough.
      if (result.outcome === 'failed' && this.rerankFailures++ === 0) {
        this.logger.warn(`reranking failed, the fused order stands: ${result.reason ?? 'unknown'}`);
      }
    }
    return hits.filter((h) => h.score >= request.threshold);
  }
}
