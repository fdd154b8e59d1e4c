import { Inject, Injectable } from '@nestjs/common';
import { type ChunkStore, KbqaError, type SourceKind, VERSION_FIELD } from '@kbqa/core';
import { isoUtc } from '@kbqa/store-sqlite';
import type { DataSource } from 'typeorm';
import { CHUNK_STORE, DATA_SOURCE } from '../database/database.module';
import { ProjectsService } from '../projects/projects.service';
import { TeachingService } from '../teaching/teaching.service';
import { DEFAULT_PAGE } from './paging.dto';
import type { AdminSourceResponse, ListSourcesQuery, SourceListResponse } from './sources.dto';
import { runSql } from '../database/sql';
import { knownTitle } from '../common/titles';

/** The operator's view of a project's sources: a searchable list, and deletion of one. */
@Injectable()
export class AdminSourcesService {
  constructor(
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(CHUNK_STORE) private readonly store: ChunkStore,
    private readonly projects: ProjectsService,
    private readonly teaching: TeachingService,
  ) {}

  /** Sources in the order they were first added; `q` matches part of the source string, any case. */
  async list(projectId: number, query: ListSourcesQuery): Promise<SourceListResponse> {
    await this.projects.getProject(projectId);
    const where = ['s.project_id = ?'];
    const params: Array<string | number> = [projectId];
    if (query.index_id !== undefined) {
      where.push('s.index_id = ?');
      params.push(query.index_id);
    }
    if (query.q) {
      // A substring match on both stores: LIKE with the wildcards of the search text escaped.
      where.push("lower(s.source) LIKE ? ESCAPE '!'");
      params.push(`%${query.q.toLowerCase().replace(/[!%_]/g, '!$&')}%`);
    }
    const [count] = await runSql<Array<{ n: number }>>(
      this.dataSource,
      `SELECT count(*) AS n FROM sources s WHERE ${where.join(' AND ')}`,
      params,
    );
    const rows = await runSql<
      Array<{
        id: number;
        source: string;
        kind: SourceKind;
        index_id: number | null;
        date_added: string;
        updated_at: string;
        chunks: number;
        title: string | null;
        document_id: number | null;
      }>
    >(
      this.dataSource,
      `SELECT s.id, s.source, s.kind, s.index_id, s.date_added, s.updated_at,
         (SELECT count(*) FROM chunks c WHERE c.source_id = s.id) AS chunks,
         (SELECT d.title FROM documents d WHERE d.source_id = s.id ORDER BY d.id LIMIT 1) AS title,
         (SELECT d.id FROM documents d WHERE d.source_id = s.id ORDER BY d.id LIMIT 1) AS document_id
       FROM sources s WHERE ${where.join(' AND ')}
       ORDER BY s.id LIMIT ? OFFSET ?`,
      [...params, query.limit ?? DEFAULT_PAGE, query.offset ?? 0],
    );
    const versions = await this.store.documentsMetadataField(
      projectId,
      rows.flatMap((r) => (r.document_id === null ? [] : [Number(r.document_id)])),
      VERSION_FIELD,
    );
    return {
      total: count?.n ?? 0,
      sources: rows.map(({ title, document_id, ...r }): AdminSourceResponse => ({
        ...r,
        title: knownTitle(title, r.source) ? title : null,
        version: document_id === null ? null : (versions.get(Number(document_id))?.toString() ?? null),
        date_added: isoUtc(r.date_added),
        updated_at: isoUtc(r.updated_at),
      })),
    };
  }

  /** Removes a source with its documents, chunks and vectors (one transaction in the store). */
  async delete(sourceId: number): Promise<{ deleted: number }> {
    const [row] = await runSql<Array<{ project_id: number; source: string; kind: SourceKind }>>(
      this.dataSource,
      'SELECT project_id, source, kind FROM sources WHERE id = ?',
      [sourceId],
    );
    if (!row) throw new KbqaError('NOT_FOUND', `source ${sourceId} does not exist`);
    const deleted = await this.store.deleteSourcesById(row.project_id, [sourceId]);
    if (row.kind === 'teach') await this.teaching.forgetSource(row.project_id, row.source);
    return { deleted };
  }
}
