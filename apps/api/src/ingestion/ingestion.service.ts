import { randomInt } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { KbqaError, type LoadRequest, type SourceType } from '@kbqa/core';
import { formatMicros, IngestionTaskEntity, nowTimestamp, type TaskKind } from '@kbqa/store-sqlite';
import { type DataSource, In, LessThan, type Repository } from 'typeorm';
import { DATA_SOURCE } from '../database/database.module';
import { INGESTION_QUEUE, type IngestionQueue, type QueuedTask } from './ingestion-queue';
import type { DocumentsPayload } from './ingestion.runner';
import type { IngestDataDto, IngestionStatusResponse, RawDocument } from './ingestion.dto';
import { LoaderRegistry } from './loader-registry';

@Injectable()
export class IngestionService {
  private readonly tasks: Repository<IngestionTaskEntity>;

  constructor(
    @Inject(DATA_SOURCE) dataSource: DataSource,
    @Inject(INGESTION_QUEUE) private readonly queue: IngestionQueue,
    private readonly loaders: LoaderRegistry,
  ) {
    this.tasks = dataSource.getRepository(IngestionTaskEntity);
  }

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

  async ingestData(projectId: number, dto: IngestDataDto): Promise<number> {
    const type: SourceType = dto.type ?? 'website-crawler';
    if (type !== 'website-crawler' && (dto.include_paths?.length || dto.exclude_paths?.length)) {
      throw new KbqaError(
        'BAD_REQUEST',
        'include_paths and exclude_paths apply only to type website-crawler',
      );
    }
    const request: LoadRequest = {
      url: dto.url.trim(),
      includePaths: dto.include_paths,
      excludePaths: dto.exclude_paths,
    };
    this.loaders.get(type).validate(request);
    this.loaders.assertFetchable(type, request.url);
    return this.createTask(projectId, type, JSON.stringify(request), 0);
  }

  /** The task row is committed before its id is returned, so a status call can never miss it. */
  private async createTask(
    projectId: number,
    kind: TaskKind,
    payload: string,
    total: number,
  ): Promise<number> {
    const now = nowTimestamp();
    const row = await this.insertWithNewId(
      this.tasks.create({
        projectId,
        kind,
        status: 'pending',
        current: 0,
        total,
        currentStep: 'PENDING',
        payload,
        success: null,
        errorCode: null,
        error: null,
        stats: null,
        attempts: 0,
        createdAt: now,
        updatedAt: now,
        finishedAt: null,
      }),
    );
    await this.queue.enqueue({ id: row.id, projectId });
    return row.id;
  }

  /** Inserts a task under a fresh random id; a collision (about 1 in 2^48 per task) draws again. */
  private async insertWithNewId(row: IngestionTaskEntity): Promise<IngestionTaskEntity> {
    for (let attempt = 0; ; attempt++) {
      row.id = newTaskId();
      try {
        await this.tasks.insert(row);
        return row;
      } catch (e) {
        if (attempt >= 2 || !/UNIQUE constraint failed/.test(String(e))) throw e;
      }
    }
  }

  /** Status of a task; scoped to a project when the caller sent a key. */
  async status(taskId: number, projectId: number | undefined): Promise<IngestionStatusResponse> {
    // Never the payload: it can be megabytes and status is polled often.
    const task = await this.tasks.findOne({
      select: [
        'id',
        'projectId',
        'status',
        'current',
        'total',
        'currentStep',
        'success',
        'error',
        'indexedCount',
        'skippedCount',
      ],
      where: { id: taskId },
    });
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
  async unfinishedTasks(): Promise<QueuedTask[]> {
    const rows = await this.tasks.find({
      select: { id: true, projectId: true },
      where: { status: In(['pending', 'running']) },
      // Ids are random: creation time gives the order of arrival.
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    return rows.map((r) => ({ id: r.id, projectId: r.projectId }));
  }

  /** Tasks pending for longer than `ms` (the queue may have lost their jobs), oldest first. */
  async pendingTasks(ms: number): Promise<QueuedTask[]> {
    const rows = await this.tasks.find({
      select: { id: true, projectId: true },
      where: { status: 'pending', updatedAt: LessThan(formatMicros((Date.now() - ms) * 1000)) },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    return rows.map((r) => ({ id: r.id, projectId: r.projectId }));
  }

  requeue(task: QueuedTask): Promise<void> {
    return this.queue.enqueue(task);
  }
}

/**
 * A task id: a random integer from 2^32 up to 2^48, so it is unguessable, fits a JSON number
 * exactly, and never equals the small sequential ids of tasks stored before ids were random.
 */
export function newTaskId(): number {
  return randomInt(2 ** 32, 2 ** 48);
}
