/**
 * Where ingestion tasks wait to run. The task row (with its payload) is the truth; a queue
 * only carries task ids, so any implementation can be rebuilt from the tasks table.
 */
export interface IngestionQueue {
  readonly kind: 'in-process' | 'bullmq';
  /** Queues a committed task. Queuing a task that is already queued or running is a no-op. */
  enqueue(task: QueuedTask): Promise<void>;
  /** Stops taking work, aborts what runs (it is re-queued at the next start) and releases resources. */
  close(): Promise<void>;
  /** Whether tasks can be queued right now (`/health` shows it). */
  health(): Promise<QueueHealth>;
}

export interface QueueHealth {
  state: 'ok' | 'unavailable';
  /** Why it is unavailable, for operators. */
  detail?: string;
}

/**
 * What a queue knows of a task: its id, and its project, so that one project's tasks never take
 * every slot. Each queue runs at most one task per project at a time (fairness: a 10,000-page
 * crawl of one project no longer delays another project's one-document task by minutes).
 */
export interface QueuedTask {
  id: number;
  projectId: number;
}

export const INGESTION_QUEUE = Symbol('INGESTION_QUEUE');

/** Runs one task to its end; shared by every queue implementation. */
export interface TaskRunner {
  run(taskId: number, signal: AbortSignal): Promise<void>;
}
