import { Logger } from '@nestjs/common';
import type { IngestionQueue, QueueHealth, QueuedTask, TaskRunner } from './ingestion-queue';

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
  private readonly controller = new AbortController();
  private closed = false;

  constructor(
    private readonly runner: TaskRunner,
    private readonly concurrency = 2,
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
    this.controller.abort();
    await Promise.allSettled([...this.running.values()]);
  }

  /** The first project, in turn order, with a waiting task and nothing running. */
  private nextProject(): number | undefined {
    for (const projectId of this.waiting.keys()) {
      if (!this.busyProjects.has(projectId)) return projectId;
    }
    return undefined;
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.concurrency) {
      const projectId = this.nextProject();
      if (projectId === undefined) return;
      const list = this.waiting.get(projectId)!;
      const taskId = list.shift()!;
      // The project goes to the back of the turn order.
      this.waiting.delete(projectId);
      if (list.length > 0) this.waiting.set(projectId, list);
      this.busyProjects.add(projectId);
      const done = this.runner
        .run(taskId, this.controller.signal)
        .catch((e: unknown) =>
          this.logger.error(`task ${taskId}: ${e instanceof Error ? e.message : String(e)}`),
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
