import type { INestApplicationContext } from '@nestjs/common';
import { TasksService } from './tasks/tasks.service';

/** `kbqa tasks show <id>`: the task's outcome and every URL it indexed or skipped, with the reason. */
export async function showTask(
  ctx: INestApplicationContext,
  taskId: number,
): Promise<{ text: string; json: unknown }> {
  const report = await ctx.get(TasksService).report(taskId);
  const outcome =
    report.status !== 'completed'
      ? `${report.status} (${report.current_step} ${report.current}/${report.total})`
      : report.success
        ? 'succeeded'
        : `failed: ${report.error_code ?? 'ERROR'}: ${report.error ?? ''}`;
  const lines = [
    `task ${report.id} (${report.kind}, project ${report.project_id}) ${outcome}`,
    `${report.indexed_count} indexed, ${report.skipped_count} skipped, ${report.chunks} chunks`,
    ...(report.counts
      ? [
          `pages: ${report.counts.added} added, ${report.counts.updated} updated, ` +
            `${report.counts.unchanged} unchanged, ${report.counts.removed} removed, ${report.counts.failed} failed`,
        ]
      : []),
    ...(report.note ? [`note: ${report.note}`] : []),
    ...report.indexed.map((url) => `indexed\t${url}`),
    ...report.skipped.map((s) => `skipped\t${s.url}\t${s.code ?? '-'}\t${s.reason}`),
  ];
  const unlisted =
    report.indexed_count - report.indexed.length + (report.skipped_count - report.skipped.length);
  if (unlisted > 0) lines.push(`(${unlisted} more not listed)`);
  return { text: lines.join('\n'), json: report };
}
