import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  ANSWER_FLOOR,
  type ChunkStore,
  type MetadataCondition,
  type SearchHit,
  VERSION_DEFAULT_FIELD,
  VERSION_FIELD,
} from '@kbqa/core';
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
  /**
   * The documentation version asked for. Without one, a versioned project answers from its
   * default version; either way only one version's copy of a page can come back.
   */
  version?: string;
}

/** What a versioned retrieval found, and from which version when not the one asked for. */
export interface VersionedHits {
  hits: SearchHit[];
  /** Set when the asked (or default) version had nothing relevant and this version had. */
  fallbackVersion?: string;
}

/** Most versions one project is searched across when the asked one has nothing. */
const MAX_VERSIONS = 12;
/**
 * How long a project's list of versions is reused. Listing reads every document's metadata, and
 * almost every chat would pay for it; a version added by an ingestion is seen this much later.
 */
const VERSIONS_TTL_MS = 2000;

/**
 * Finds the passages for a question: hybrid when a model is ready, lexical otherwise; with a
 * reranker ready, its order of the first candidates when it answers within its budget. The search
 * runs on the read pool when there is one (the query is embedded here, its vector sent along).
 */
@Injectable()
export class RetrievalService {
  private readonly logger = new Logger('Retrieval');
  private rerankFailures = 0;
  private readonly versionLists = new Map<number, { versions: string[]; at: number }>();

  constructor(
    @Inject(CHUNK_STORE) private readonly store: ChunkStore,
    private readonly embedding: EmbeddingService,
    @Optional() @Inject(READ_POOL) private readonly pool: ReadPool | null = null,
  ) {}

  /** The words no chunk of the project has (ChunkStore.absentWords), on the service's connection. */
  async absentWords(projectId: number, words: string[]): Promise<string[]> {
    return words.length === 0 ? [] : await this.store.absentWords(projectId, words);
  }

  /**
   * Retrieval that keeps one version of versioned documentation: the asked version's pages (or
   * the default version's) and the pages that have no version. When those hold nothing relevant,
   * the first other version that does answers, and the caller is told which. A `where` filter
   * naming the version fields is the caller's choice and is left as it is.
   */
  async retrieveVersioned(request: RetrieveRequest): Promise<VersionedHits> {
    const versions = await this.versions(request.projectId);
    const named = request.filters.some((f) => f.field === VERSION_FIELD || f.field === VERSION_DEFAULT_FIELD);
    if (versions.length === 0) return { hits: await this.retrieve(request) };
    if (named) return { hits: await this.withVersions(request, request.filters) };
    const only: MetadataCondition =
      request.version !== undefined
        ? { field: VERSION_FIELD, op: '$eq', value: request.version }
        : { field: VERSION_DEFAULT_FIELD, op: '$ne', value: 0 };
    const hits = await this.withVersions(request, [...request.filters, only]);
    if (hits.some((h) => h.score >= ANSWER_FLOOR) || request.threshold >= 1) return { hits };
    for (const version of versions) {
      if (version === request.version) continue;
      const other = await this.withVersions(request, [
        ...request.filters,
        { field: VERSION_FIELD, op: '$eq', value: version },
      ]);
      if (other.some((h) => h.score >= ANSWER_FLOOR)) return { hits: other, fallbackVersion: version };
    }
    return { hits };
  }

  /** The versions a project's documents carry, reused for {@link VERSIONS_TTL_MS}. */
  private async versions(projectId: number): Promise<string[]> {
    const now = Date.now();
    const cached = this.versionLists.get(projectId);
    if (cached && now - cached.at < VERSIONS_TTL_MS) return cached.versions;
    // Versioned documentation is what a loader stamped (or a client marked) with version_default:
    // a `version` field alone is the client's own metadata, filtered only by its own `where`.
    const marked = await this.store.metadataValues(projectId, VERSION_DEFAULT_FIELD, 1);
    const values =
      marked.length === 0 ? [] : await this.store.metadataValues(projectId, VERSION_FIELD, MAX_VERSIONS);
    const versions = values.map(String).sort(compareVersionsNewestFirst);
    this.versionLists.set(projectId, { versions, at: now });
    return versions;
  }

  /** Hits of the filtered search, each with the version of its page when it has one. */
  private async withVersions(request: RetrieveRequest, filters: MetadataCondition[]): Promise<SearchHit[]> {
    const hits = await this.retrieve({ ...request, filters });
    const versions = await this.store.documentsMetadataField(
      request.projectId,
      [...new Set(hits.map((h) => h.documentId))],
      VERSION_FIELD,
    );
    return hits.map((h) => {
      const version = versions.get(h.documentId);
      return version === undefined ? h : { ...h, version: String(version) };
    });
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

/** Newest first by the numbers in the names ("3.x" before "2.x", "v10" before "v9"), then by name. */
export function compareVersionsNewestFirst(a: string, b: string): number {
  const na = a.match(/\d+/g)?.map(Number) ?? [];
  const nb = b.match(/\d+/g)?.map(Number) ?? [];
  for (let i = 0; i < Math.max(na.length, nb.length); i++) {
    const d = (nb[i] ?? -1) - (na[i] ?? -1);
    if (d !== 0) return d;
  }
  return a.localeCompare(b);
}
