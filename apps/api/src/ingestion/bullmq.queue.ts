import { Logger } from '@nestjs/common';
import { type ConnectionOptions, DelayedError, type Job, Queue, Worker } from 'bullmq';
import type { IngestionQueue, QueueHealth, QueuedTask, TaskRunner } from './ingestion-queue';

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
  /** Lock duration and stall-check interval of the workers (see KBQA_QUEUE_STALL_MS). Default 30 s. */
  stallMs?: number;
}

/**
 * How long a request waits for Redis to take a job. The task row is already committed, so on a
 * dead queue the request still answers with its task id and the task is queued by the
 * reconciliation once Redis is back, instead of the request hanging until then.
 */
const ENQUEUE_WAIT_MS = 1_500;
/** How long `/health` waits for Redis to answer a PING. */
const HEALTH_PING_MS = 1_000;

/** A job whose project is busy waits this long before it is looked at again. */
const BUSY_PROJECT_DELAY_MS = 500;

/** Deletes or extends a key only while it still holds our value (another task may own it now). */
const RELEASE_LOCK = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;
const EXTEND_LOCK = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0`;

/** The ioredis commands the project turn needs (BullMQ's client is ioredis; its type is narrower). */
interface TurnCommands {
  set(key: string, value: string, px: 'PX', ms: number, nx: 'NX'): Promise<'OK' | null>;
  eval(script: string, keys: number, ...args: Array<string | number>): Promise<unknown>;
}

interface JobData {
  taskId: number;
  /** Absent on jobs queued by versions before fairness; those run without a project turn. */
  projectId?: number;
}

/**
 * Scale-out queue: tasks run on whichever process has a worker. The job id derives from the
 * task id, so re-queuing a task that is still waiting or running adds nothing. At most one task
 * per project runs at a time across every process (a Redis key per project, held with a
 * renewed expiry): a job whose project is busy goes back to the delayed set for a moment, so
 * the free slots serve other projects' tasks.
 */
export class BullmqQueue implements IngestionQueue {
  readonly kind = 'bullmq' as const;
  private readonly logger = new Logger(BullmqQueue.name);
  private readonly queue: Queue;
  private worker: Worker | undefined;
  private readonly controller = new AbortController();
  private readonly lockPrefix: string;
  /** How long a project's turn lasts without renewal: a killed worker frees it as its job stalls. */
  private readonly turnMs: number;
  /** Set while enqueues fail, so an outage is logged once, not once per task. */
  private unavailableSince: number | undefined;

  constructor(
    private readonly runner: TaskRunner,
    options: BullmqQueueOptions,
  ) {
    const connection = redisConnection(options.redisUrl);
    const name = options.queueName ?? QUEUE_NAME;
    this.queue = new Queue(name, { connection });
    this.lockPrefix = `kbqa:${name}:project-turn:`;
    this.turnMs = options.stallMs ?? 30_000;
    if (options.runWorkers) {
      this.worker = new Worker(name, (job, token) => this.process(job as Job<JobData>, token), {
        connection,
        concurrency: options.concurrency,
        lockDuration: options.stallMs ?? 30_000,
        stalledInterval: options.stallMs ?? 30_000,
        settings: {
          backoffStrategy: (attemptsMade: number) => Math.min(5_000 * 2 ** (attemptsMade - 1), 300_000),
        },
      });
      this.worker.on('failed', (job, err) =>
        this.logger.error(`job ${job?.id ?? '?'} failed: ${err.message}`),
      );
      this.worker.on('error', (err) => this.logger.error(`worker error: ${err.message}`));
    }
  }

  /**
   * Adds the task's job, waiting at most ENQUEUE_WAIT_MS: when Redis is unreachable the task
   * stays pending in the database (nothing is lost) and `reconcile` queues it later.
   */
  async enqueue(task: QueuedTask): Promise<void> {
    const data: JobData = { taskId: task.id, projectId: task.projectId };
    const added = this.queue.add('ingest', data, {
      jobId: jobIdOf(task.id),
      removeOnComplete: true,
      removeOnFail: 1000,
      // A run throws only when it could not record the task's end (the database refused writes,
      // a full disk say): BullMQ runs it again after growing pauses, about four hours in all.
      attempts: 50,
      backoff: { type: 'custom' },
    });
    const outcome = await within(added, ENQUEUE_WAIT_MS);
    if (outcome === 'done') {
      this.unavailableSince = undefined;
      return;
    }
    if (this.unavailableSince === undefined) {
      this.unavailableSince = Date.now();
      this.logger.warn(
        `Redis did not take task ${task.id} (${outcome === 'timeout' ? 'no answer' : outcome.message}); ` +
          'tasks stay pending and are queued when Redis answers again',
      );
    }
  }

  async health(): Promise<QueueHealth> {
    const redis = (await this.queue.client) as unknown as { ping(): Promise<string> };
    const outcome = await within(redis.ping(), HEALTH_PING_MS);
    if (outcome === 'done') return { state: 'ok' };
    return {
      state: 'unavailable',
      detail: outcome === 'timeout' ? 'Redis does not answer' : `Redis: ${outcome.message}`,
    };
  }

  private async process(job: Job<JobData>, token: string | undefined): Promise<void> {
    const { taskId, projectId } = job.data;
    if (projectId === undefined) return this.runner.run(taskId, this.controller.signal);
    const redis = (await this.queue.client) as unknown as TurnCommands;
    const key = this.lockPrefix + String(projectId);
    const owner = `${taskId}`;
    const taken = await redis.set(key, owner, 'PX', this.turnMs, 'NX');
    if (taken !== 'OK') {
      await job.moveToDelayed(Date.now() + BUSY_PROJECT_DELAY_MS, token);
      throw new DelayedError();
    }
    const renew = setInterval(() => {
      redis.eval(EXTEND_LOCK, 1, key, owner, this.turnMs).catch(() => undefined);
    }, this.turnMs / 3);
    try {
      await this.runner.run(taskId, this.controller.signal);
    } finally {
      clearInterval(renew);
      await redis.eval(RELEASE_LOCK, 1, key, owner).catch(() => undefined);
    }
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

/** Waits for a promise at most `ms`; never rejects (a late rejection is swallowed). */
async function within(promise: Promise<unknown>, ms: number): Promise<'done' | 'timeout' | Error> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => 'done' as const,
        (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
