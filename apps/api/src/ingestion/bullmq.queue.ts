import { Logger } from '@nestjs/common';
import { type ConnectionOptions, Queue, Worker } from 'bullmq';
import type { IngestionQueue, TaskRunner } from './ingestion-queue';

export const QUEUE_NAME = 'kbqa-ingestion';

/** BullMQ refuses purely numeric custom ids, so the job id is the task id with a fixed prefix. */
export function jobIdOf(taskId: number): string {
  return `task-${taskId}`;
}

export function redisConnection(url: string): ConnectionOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username || undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
  };
}

export interface BullmqQueueOptions {
  redisUrl: string;
  /** Run workers in this process (API processes may leave the work to `kbqa worker`). */
  runWorkers: boolean;
  concurrency: number;
  /** Queue name; tests use their own so parallel runs don't share jobs. */
  queueName?: string;
}

/**
 * Scale-out queue: tasks run on whichever process has a worker. The job id derives from the
 * task id, so re-queuing a task that is still waiting or running adds nothing.
 */
export class BullmqQueue implements IngestionQueue {
  readonly kind = 'bullmq' as const;
  private readonly logger = new Logger(BullmqQueue.name);
  private readonly queue: Queue;
  private worker: Worker | undefined;
  private readonly controller = new AbortController();

  constructor(
    private readonly runner: TaskRunner,
    options: BullmqQueueOptions,
  ) {
    const connection = redisConnection(options.redisUrl);
    const name = options.queueName ?? QUEUE_NAME;
    this.queue = new Queue(name, { connection });
    if (options.runWorkers) {
      this.worker = new Worker(
        name,
        async (job) => {
          const { taskId } = job.data as { taskId: number };
          await this.runner.run(taskId, this.controller.signal);
        },
        { connection, concurrency: options.concurrency, lockDuration: 60_000 },
      );
      this.worker.on('failed', (job, err) =>
        this.logger.error(`job ${job?.id ?? '?'} failed: ${err.message}`),
      );
      this.worker.on('error', (err) => this.logger.error(`worker error: ${err.message}`));
    }
  }

  async enqueue(taskId: number): Promise<void> {
    await this.queue.add(
      'ingest',
      { taskId },
      { jobId: jobIdOf(taskId), removeOnComplete: true, removeOnFail: 1000, attempts: 1 },
    );
  }

  /** Counts of jobs by state (health and tests). */
  counts(): Promise<Record<string, number>> {
    return this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed');
  }

  async close(): Promise<void> {
    this.controller.abort();
    if (this.worker) await this.worker.close();
    await this.queue.close();
  }
}
