import { Inject, Injectable } from '@nestjs/common';
import { type ChunkStore, KbqaError, type SourceListing, VERSION_FIELD, isoUtc } from '@kbqa/core';
import { CHUNK_STORE } from '../database/database.module';
import { SOURCE_LISTING } from '../database/tasks.providers';
import { ProjectsService } from '../projects/projects.service';
import { TeachingService } from '../teaching/teaching.service';
import { DEFAULT_PAGE } from './paging.dto';
import type { AdminSourceResponse, ListSourcesQuery, SourceListResponse } from './sources.dto';
import { knownTitle } from '../common/titles';

/** The operator's view of a project's sources: a searchable list, and deletion of one. */
@Injectable()
export class AdminSourcesService {
  constructor(
    @Inject(SOURCE_LISTING) private readonly sources: SourceListing,
    @Inject(CHUNK_STORE) private readonly store: ChunkStore,
    private readonly projects: ProjectsService,
    private readonly teaching: TeachingService,
  ) {}

  /** Sources in the order they were first added; `q` matches part of the source string, any case. */
  async list(projectId: number, query: ListSourcesQuery): Promise<SourceListResponse> {
    await this.projects.getProject(projectId);
    const { total, sources } = await this.sources.list(projectId, {
      ...(query.index_id !== undefined ? { indexId: query.index_id } : {}),
      ...(query.q ? { q: query.q } : {}),
      limit: query.limit ?? DEFAULT_PAGE,
      offset: query.offset ?? 0,
    });
    const versions = await this.store.documentsMetadataField(
      projectId,
      sources.flatMap((s) => (s.documentId === null ? [] : [s.documentId])),
      VERSION_FIELD,
    );
    return {
      total,
      sources: sources.map((s): AdminSourceResponse => ({
        id: s.id,
        source: s.source,
        kind: s.kind,
        index_id: s.indexId,
        date_added: isoUtc(s.dateAdded),
        updated_at: isoUtc(s.updatedAt),
        chunks: s.chunks,
        title: knownTitle(s.title, s.source) ? s.title : null,
        version: s.documentId === null ? null : (versions.get(s.documentId)?.toString() ?? null),
      })),
    };
  }

  /** Removes a source with its documents, chunks and vectors (one transaction in the store). */
  async delete(sourceId: number): Promise<{ deleted: number }> {
    const row = await this.sources.entry(sourceId);
    if (!row) throw new KbqaError('NOT_FOUND', `source ${sourceId} does not exist`);
    const deleted = await this.store.deleteSourcesById(row.projectId, [sourceId]);
    if (row.kind === 'teach') await this.teaching.forgetSource(row.projectId, row.source);
    return { deleted };
  }
}
