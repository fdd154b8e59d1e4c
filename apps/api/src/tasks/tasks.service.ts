import { Inject, Injectable } from '@nestjs/common';
import { KbqaError, type TaskRepository, toIsoUtc } from '@kbqa/core';
import { TASK_REPOSITORY } from '../database/tasks.providers';
import type { TaskStats } from '../ingestion/ingestion.runner';
import { ProjectsService } from '../projects/projects.service';
import { MAX_TASK_LIST, type TaskReportResponse, type TaskSummaryResponse } from './tasks.dto';

/**
 * Reads what ingestion tasks did, for operators: `kbqa tasks show` and the operator API call the
 * same methods, so both say the same thing about a task.
 */
@Injectable()
export class TasksService {
  constructor(
    @Inject(TASK_REPOSITORY) private readonly tasks: TaskRepository,
    private readonly projects: ProjectsService,
  ) {}

  /** The task's outcome and every URL it indexed or skipped, with the reason; NOT_FOUND if unknown. */
  async report(taskId: number): Promise<TaskReportResponse> {
    // Never the payload (TaskReport): it holds every raw document of the request.
    const task = await this.tasks.report(taskId);
    if (!task) throw new KbqaError('NOT_FOUND', `task ${taskId} not found`);
    const stats: Partial<TaskStats> = task.stats ? (JSON.parse(task.stats) as Partial<TaskStats>) : {};
    const skipped = stats.skipped ?? [];
    return {
      id: task.id,
      project_id: task.projectId,
      kind: task.kind,
      status: task.status,
      current_step: task.currentStep,
      current: task.current,
      total: task.total,
      success: task.status === 'completed' ? task.success === true : null,
      error: task.error ?? null,
      error_code: task.errorCode ?? null,
      chunks: stats.chunks ?? 0,
      indexed_count: stats.sources ?? 0,
      skipped_count: stats.skippedCount ?? skipped.length,
      ...(stats.counts ? { counts: stats.counts } : {}),
      ...(stats.deletedDuringRun ? { deleted_during_run: stats.deletedDuringRun } : {}),
      note: stats.note ?? null,
      indexed: stats.indexed ?? [],
      skipped,
      created_at: toIsoUtc(task.createdAt),
      finished_at: task.finishedAt === null ? null : toIsoUtc(task.finishedAt),
    };
  }

  /** A project's tasks, newest first, at most `limit` of them; NOT_FOUND for an unknown project. */
  async list(projectId: number, limit: number): Promise<TaskSummaryResponse[]> {
    await this.projects.getProject(projectId);
    // The counts have their own columns, so the listing never reads a report or a payload.
    const rows = await this.tasks.list(projectId, Math.min(Math.max(1, limit), MAX_TASK_LIST));
    return rows.map((t) => ({
      id: t.id,
      kind: t.kind,
      status: t.status,
      success: t.status === 'completed' ? t.success === true : null,
      created_at: toIsoUtc(t.createdAt),
      finished_at: t.finishedAt === null ? null : toIsoUtc(t.finishedAt),
      indexed: t.indexedCount,
      skipped: t.skippedCount,
    }));
  }
}
