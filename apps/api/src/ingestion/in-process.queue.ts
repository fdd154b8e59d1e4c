import { Logger } from '@nestjs/common';
import type { IngestionQueue, QueueHealth, QueuedTask, TaskRunner } from './ingestion-queue';

/** Pauses before running again a task whose run could not record its outcome. */
export interface RetryPolicy {
  firstDelayMs: number;
  maxDelayMs: number;
}

/**
 * The embedded default: tasks run in this process, a few at a time, at most one per project,
 * and projects take turns (the next task comes from the project after the last one served).
 */
export class InProcessQueue implements IngestionQueue {
  readonly kind = 'in-process' as const;
  private readonly logger = new Logger(InProcessQueue.name);
  /** Waiting tasks by project, in arrival order; projects in the order they first queued. */
  private readonly waiting = new Map<number, number[]>();
  private readonly known = new Set<number>();
  private readonly running = new Map<number, Promise<void>>();
  private readonly busyProjects = new Set<number>();
  /** When each project last started a task (a counter), for taking turns. */
  private readonly lastTurn = new Map<number, number>();
  private turns = 0;
  private readonly controller = new AbortController();
  private readonly retries = new Map<number, { attempts: number; timer?: NodeJS.Timeout }>();
  private closed = false;

  constructor(
    private readonly runner: TaskRunner,
    private readonly concurrency = 2,
    private readonly retry: RetryPolicy = { firstDelayMs: 5_000, maxDelayMs: 300_000 },
  ) {}

  enqueue(task: QueuedTask): Promise<void> {
    if (this.closed || this.known.has(task.id)) return Promise.resolve();
    this.known.add(task.id);
    const list = this.waiting.get(task.projectId);
    if (list) list.push(task.id);
    else this.waiting.set(task.projectId, [task.id]);
    this.pump();
    return Promise.resolve();
  }

  health(): Promise<QueueHealth> {
    return Promise.resolve({ state: this.closed ? 'unavailable' : 'ok' });
  }

  /** Resolves when nothing is waiting or running (tests and the CLI use it). */
  async drain(): Promise<void> {
    while (this.running.size > 0 || this.waiting.size > 0) {
      await Promise.allSettled([...this.running.values()]);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.waiting.clear();
    for (const { timer } of this.retries.values()) clearTimeout(timer);
    this.controller.abort();
    await Promise.allSettled([...this.running.values()]);
  }

  /**
   * A run that throws could not record its outcome (the runner records every failure it can:
   * this is the database refusing writes, a full disk say). The task is still pending or running
   * in the database, so it is run again later, with growing pauses, until a run records an end.
   */
  private retryLater(task: QueuedTask, e: unknown): void {
    const entry = this.retries.get(task.id) ?? { attempts: 0 };
    const delay = Math.min(this.retry.firstDelayMs * 2 ** entry.attempts, this.retry.maxDelayMs);
    entry.attempts++;
    this.logger.error(
      `task ${task.id} could not record its outcome (${e instanceof Error ? e.message : String(e)}); ` +
        `running it again in ${Math.round(delay / 1000)} s`,
    );
    entry.timer = setTimeout(() => void this.enqueue(task), delay);
    entry.timer.unref();
    this.retries.set(task.id, entry);
  }

  /**
   * The idle project with a waiting task that was served least recently (never served first;
   * ties go to the one that queued first).
   */
  private nextProject(): number | undefined {
    let best: number | undefined;
    let bestTurn = Infinity;
    for (const projectId of this.waiting.keys()) {
      if (this.busyProjects.has(projectId)) continue;
      const turn = this.lastTurn.get(projectId) ?? -1;
      if (turn < bestTurn) {
        best = projectId;
        bestTurn = turn;
      }
    }
    return best;
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.concurrency) {
      const projectId = this.nextProject();
      if (projectId === undefined) return;
      const list = this.waiting.get(projectId)!;
      const taskId = list.shift()!;
      if (list.length === 0) this.waiting.delete(projectId);
      this.lastTurn.set(projectId, this.turns++);
      this.busyProjects.add(projectId);
      const done = this.runner
        .run(taskId, this.controller.signal)
        .then(
          () => void this.retries.delete(taskId),
          (e: unknown) => this.retryLater({ id: taskId, projectId }, e),
        )
        .finally(() => {
          this.running.delete(taskId);
          this.known.delete(taskId);
          this.busyProjects.delete(projectId);
          this.pump();
        });
      this.running.set(taskId, done);
    }
  }
}

/**
 * The queue of a process without workers and without Redis (KBQA_WORKER=0): it runs nothing. A
 * task it is given stays pending in the database, where a process with workers finds it.
 */
export class HandOffQueue implements IngestionQueue {
  readonly kind = 'in-process' as const;

  enqueue(): Promise<void> {
    return Promise.resolve();
  }

  health(): Promise<QueueHealth> {
    return Promise.resolve({ state: 'ok' });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
