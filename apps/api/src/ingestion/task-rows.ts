import { type NewTask, nowTimestamp, RANDOM_ID_ATTEMPTS, randomRecordId } from '@kbqa/core';
import type { IngestionTaskEntity } from '@kbqa/store-sqlite';
import type { Repository } from 'typeorm';

/**
 * Inserts a pending task under a fresh random id (a collision, about 1 in 2^48 per task, draws
 * again) and returns it. The row is committed before anyone learns its id.
 *
 * @deprecated Use `TaskRepository.create` (TASK_REPOSITORY). Kept, with its ORM repository, only
 * for indexes.service.ts until index records move behind a repository of their own.
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
  for (let attempt = 1; ; attempt++) {
    // Unguessable, as ingestionStatus answers without a key (randomRecordId).
    row.id = randomRecordId();
    try {
      await tasks.insert(row);
      return row;
    } catch (e) {
      // SQLite's and PostgreSQL's words for a taken key.
      const collided = /UNIQUE constraint failed|duplicate key value/.test(String(e));
      if (!collided || attempt >= RANDOM_ID_ATTEMPTS) throw e;
    }
  }
}
