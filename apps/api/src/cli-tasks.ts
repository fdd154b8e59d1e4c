import type { INestApplicationContext } from '@nestjs/common';
import { KbqaError } from '@kbqa/core';
import { IngestionTaskEntity } from '@kbqa/store-sqlite';
import type { DataSource } from 'typeorm';
import { DATA_SOURCE } from './database/database.module';
import type { TaskStats } from './ingestion/ingestion.runner';

/** `kbqa tasks show <id>`: the task's outcome and every URL it indexed or skipped, with the reason. */
export async function showTask(
  ctx: INestApplicationContext,
  taskId: number,
): Promise<{ text: string; json: unknown }> {
  const task = await ctx
    .get<DataSource>(DATA_SOURCE)
    .getRepository(IngestionTaskEntity)
    .findOne({
      select: [
        'id',
        'projectId',
        'kind',
        'status',
        'currentStep',
        'current',
        'total',
        'success',
        'error',
        'errorCode',
        'stats',
        'createdAt',
        'finishedAt',
      ],
      where: { id: taskId },
    });
  if (!task) throw new KbqaError('NOT_FOUND', `task ${taskId} not found`);
  const stats: Partial<TaskStats> = task.stats ? (JSON.parse(task.stats) as Partial<TaskStats>) : {};
  const indexed = stats.indexed ?? [];
  const skipped = stats.skipped ?? [];
  const skippedCount = stats.skippedCount ?? skipped.length;
  const outcome =
    task.status !== 'completed'
      ? `${task.status} (${task.currentStep} ${task.current}/${task.total})`
      : task.success
        ? 'succeeded'
        : `failed: ${task.errorCode ?? 'ERROR'}: ${task.error ?? ''}`;
  const c = stats.counts;
  const lines = [
    `task ${task.id} (${task.kind}, project ${task.projectId}) ${outcome}`,
    `${stats.sources ?? 0} indexed, ${skippedCount} skipped, ${stats.chunks ?? 0} chunks`,
    ...(c
      ? [
          `pages: ${c.added} added, ${c.updated} updated, ${c.unchanged} unchanged, ${c.removed} removed, ` +
            `${c.failed} failed`,
        ]
      : []),
    ...(stats.note ? [`note: ${stats.note}`] : []),
    ...indexed.map((url) => `indexed\t${url}`),
    ...skipped.map((s) => `skipped\t${s.url}\t${s.code ?? '-'}\t${s.reason}`),
  ];
  const unlisted = (stats.sources ?? 0) - indexed.length + (skippedCount - skipped.length);
  if (unlisted > 0) lines.push(`(${unlisted} more not listed)`);
  return {
    text: lines.join('\n'),
    json: {
      id: task.id,
      project_id: task.projectId,
      kind: task.kind,
      status: task.status,
      success: task.status === 'completed' ? task.success === true : null,
      error: task.error ?? null,
      error_code: task.errorCode ?? null,
      chunks: stats.chunks ?? 0,
      indexed_count: stats.sources ?? 0,
      skipped_count: skippedCount,
      ...(c ? { counts: c } : {}),
      note: stats.note ?? null,
      indexed,
      skipped,
      created_at: task.createdAt,
      finished_at: task.finishedAt,
    },
  };
}
