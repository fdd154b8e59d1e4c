import { Inject, Injectable } from '@nestjs/common';
import {
  formatMicros,
  KbqaError,
  type LoadRequest,
  OPERATOR_ONLY_TYPES,
  parseVersionPattern,
  type IndexRepository,
  type SourceType,
  type TaskKind,
  type TaskRepository,
} from '@kbqa/core';
import { INDEX_REPOSITORY } from '../database/indexes.providers';
import { TASK_REPOSITORY } from '../database/tasks.providers';
import { INGESTION_QUEUE, type IngestionQueue, type QueuedTask } from './ingestion-queue';
import type { DocumentsPayload, FilesPayload, ReportedCounts } from './ingestion.runner';
import {
  parseFileMetadata,
  type IngestDataDto,
  type IngestionStatusResponse,
  type RawDocument,
} from './ingestion.dto';
import type { UploadedFile } from './uploads';
import { LoaderRegistry } from './loader-registry';
import { upsertIndex } from '../indexes/index-rows';

@Injectable()
export class IngestionService {
  constructor(
    @Inject(INDEX_REPOSITORY) private readonly indexes: IndexRepository,
    @Inject(TASK_REPOSITORY) private readonly tasks: TaskRepository,
    @Inject(INGESTION_QUEUE) private readonly queue: IngestionQueue,
    private readonly loaders: LoaderRegistry,
  ) {}

  async ingestDocuments(projectId: number, documents: RawDocument[]): Promise<number> {
    const payload: DocumentsPayload = {
      documents: documents.map((d) => ({
        content: d.content,
        source: d.source,
        metadata: d.metadata,
        options: d.options ? { ...d.options } : undefined,
      })),
    };
    return this.createTask(projectId, 'documents', JSON.stringify(payload), documents.length);
  }

  /**
   * Uploaded files become one task: each file is read (PDF, Word, Markdown, HTML, text) when the
   * task runs, so a slow or bad file fails or skips there, in the task's report, not in the request.
   * A file's source is its name; uploading the same name again replaces it.
   */
  async ingestFiles(
    projectId: number,
    files: UploadedFile[],
    metadataJson: string | undefined,
  ): Promise<number> {
    if (files.length === 0) {
      throw new KbqaError('BAD_REQUEST', 'send one or more files as multipart/form-data parts named "files"');
    }
    const metadata = parseFileMetadata(metadataJson);
    const payload: FilesPayload = {
      files: files.map((f) => ({ name: f.name, data: f.data.toString('base64') })),
      ...(metadata ? { metadata } : {}),
    };
    return this.createTask(projectId, 'files', JSON.stringify(payload), files.length);
  }

  async ingestData(projectId: number, dto: IngestDataDto): Promise<number> {
    const type: SourceType = dto.type ?? 'website-crawler';
    if (OPERATOR_ONLY_TYPES.includes(type)) {
      // A folder reads the server's own disk: a project's key must never name one.
      throw new KbqaError(
        'FORBIDDEN',
        `type ${type} is an operator-only index: create it with POST /admin/v1/projects/:id/indexes ` +
          `or \`kbqa indexes add-folder --project <id> <path>\``,
      );
    }
    if (type !== 'website-crawler' && (dto.include_paths?.length || dto.exclude_paths?.length)) {
      throw new KbqaError(
        'BAD_REQUEST',
        'include_paths and exclude_paths apply only to type website-crawler',
      );
    }
    // A bad pattern is refused now, not when the load meets its first page.
    if (dto.version_pattern) parseVersionPattern(dto.version_pattern);
    const request: LoadRequest = {
      url: dto.url.trim(),
      includePaths: dto.include_paths,
      excludePaths: dto.exclude_paths,
      ...(dto.version_pattern ? { versionPattern: dto.version_pattern } : {}),
      ...(dto.default_version ? { defaultVersion: dto.default_version } : {}),
    };
    this.loaders.get(type).validate(request);
    this.loaders.assertFetchable(type, request.url);
    // The same type and URL in a project is the same index: this call re-syncs it.
    const index = await upsertIndex(this.indexes, projectId, type, request);
    return this.createTask(projectId, type, JSON.stringify(request), 0, index.id);
  }

  /** The task row is committed before its id is returned, so a status call can never miss it. */
  private async createTask(
    projectId: number,
    kind: TaskKind,
    payload: string,
    total: number,
    indexId: number | null = null,
  ): Promise<number> {
    const id = await this.tasks.create({ projectId, kind, payload, total, indexId });
    await this.queue.enqueue({ id, projectId });
    return id;
  }

  /** Status of a task; scoped to a project when the caller sent a key. */
  async status(taskId: number, projectId: number | undefined): Promise<IngestionStatusResponse> {
    // Never the payload or the report (TaskProgress): they can be megabytes and status is polled often.
    const task = await this.tasks.progress(taskId);
    if (!task || (projectId !== undefined && task.projectId !== projectId)) {
      throw new KbqaError('NOT_FOUND', `task ${taskId} not found`);
    }
    if (task.status === 'completed') {
      // Error texts name URLs and hosts of the project: only its key holder reads them.
      const error =
        projectId === undefined && task.error
          ? "the task failed; send the project's api_key with ingestionStatus to read the reason"
          : (task.error ?? '');
      return {
        status: 'completed',
        result: {
          error,
          project_id: task.projectId,
          success: task.success === true,
          indexed: task.indexedCount,
          skipped: task.skippedCount,
          ...(task.counts ? (JSON.parse(task.counts) as ReportedCounts) : {}),
        },
      };
    }
    return {
      status: task.status,
      current: task.current,
      current_step: task.currentStep,
      metadata: 'PENDING',
      total: task.total,
    };
  }

  /** Tasks a previous process left pending or running, oldest first. */
  unfinishedTasks(): Promise<QueuedTask[]> {
    return this.tasks.unfinished();
  }

  /**
   * Tasks pending for longer than `ms`, oldest first: a queue may have lost their jobs, or
   * another process (the CLI, an API process without workers) created them.
   */
  pendingTasks(ms: number): Promise<QueuedTask[]> {
    return this.tasks.pendingBefore(formatMicros((Date.now() - ms) * 1000));
  }

  requeue(task: QueuedTask): Promise<void> {
    return this.queue.enqueue(task);
  }
}
