import { Logger } from '@nestjs/common';
import type { IngestionQueue, TaskRunner } from './ingestion-queue';

/** The embedded default: a FIFO in this process, a few tasks at a time. */
export class InProcessQueue implements IngestionQueue {
  readonly kind = 'in-process' as const;
  private readonly logger = new Logger(InProcessQueue.name);
  private readonly waiting: number[] = [];
  private readonly known = new Set<number>();
  private readonly running = new Map<number, Promise<void>>();
  private readonly controller = new AbortController();
  private closed = false;

  constructor(
    private readonly runner: TaskRunner,
    private readonly concurrency = 1,
  ) {}

  enqueue(taskId: number): Promise<void> {
    if (this.closed || this.known.has(taskId)) return Promise.resolve();
    this.known.add(taskId);
    this.waiting.push(taskId);
    this.pump();
    return Promise.resolve();
  }

  /** Resolves when nothing is waiting or running (tests and the CLI use it). */
  async drain(): Promise<void> {
    while (this.running.size > 0 || this.waiting.length > 0) {
      await Promise.allSettled([...this.running.values()]);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.waiting.length = 0;
    this.controller.abort();
    await Promise.allSettled([...this.running.values()]);
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.concurrency && this.waiting.length > 0) {
      const taskId = this.waiting.shift() as number;
      const done = this.runner
        .run(taskId, this.controller.signal)
        .catch((e: unknown) =>
          this.logger.error(`task ${taskId}: ${e instanceof Error ? e.message : String(e)}`),
        )
        .finally(() => {
          this.running.delete(taskId);
          this.known.delete(taskId);
          this.pump();
        });
      this.running.set(taskId, done);
    }
  }
}
