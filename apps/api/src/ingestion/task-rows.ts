import { randomInt } from 'node:crypto';
import { IngestionTaskEntity, nowTimestamp, type TaskKind } from '@kbqa/store-sqlite';
import type { Repository } from 'typeorm';

/** What a new task is: its project, kind, request and (for ingestData) its index. */
export interface NewTask {
  projectId: number;
  kind: TaskKind;
  payload: string;
  total: number;
  indexId: number | null;
  /** Started by the auto-sync schedule (default: asked for by hand). */
  scheduled?: boolean;
}

/**
 * Inserts a pending task under a fresh random id (a collision, about 1 in 2^48 per task, draws
 * again) and returns it. The row is committed before anyone learns its id.
 */
export async function insertTask(
  tasks: Repository<IngestionTaskEntity>,
  task: NewTask,
): Promise<IngestionTaskEntity> {
  const now = nowTimestamp();
  const row = tasks.create({
    ...task,
    scheduled: task.scheduled ?? false,
    status: 'pending',
    current: 0,
    currentStep: 'PENDING',
    success: null,
    errorCode: null,
    error: null,
    stats: null,
    counts: null,
    attempts: 0,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
  });
  for (let attempt = 0; ; attempt++) {
    row.id = newTaskId();
    try {
      await tasks.insert(row);
      return row;
    } catch (e) {
      if (attempt >= 2 || !/UNIQUE constraint failed/.test(String(e))) throw e;
    }
  }
}

/**
 * A task id: a random integer from 2^32 up to 2^48, so it is unguessable, fits a JSON number
 * exactly, and never equals the small sequential ids of tasks stored before ids were random.
 */
export function newTaskId(): number {
  return randomInt(2 ** 32, 2 ** 48);
}
