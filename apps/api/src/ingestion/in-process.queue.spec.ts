import { InProcessQueue } from './in-process.queue';
import type { TaskRunner } from './ingestion-queue';

/** A runner whose runs the test ends one by one, recording the order they started in. */
class ControlledRunner implements TaskRunner {
  readonly started: number[] = [];
  private readonly pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private notify: (() => void) | undefined;

  run(taskId: number): Promise<void> {
    this.started.push(taskId);
    this.notify?.();
    return new Promise((resolve, reject) => this.pending.set(taskId, { resolve, reject }));
  }
  finish(taskId: number): void {
    this.pending.get(taskId)!.resolve();
    this.pending.delete(taskId);
  }
  fail(taskId: number, message: string): void {
    this.pending.get(taskId)!.reject(new Error(message));
    this.pending.delete(taskId);
  }
  /** Resolves once `count` runs have started. */
  async startedCount(count: number): Promise<void> {
    while (this.started.length < count) await new Promise<void>((r) => (this.notify = r));
  }
}

describe(InProcessQueue.name, () => {
  let runner: ControlledRunner;
  let queue: InProcessQueue;

  beforeEach(() => {
    runner = new ControlledRunner();
    queue = new InProcessQueue(runner, 2, { firstDelayMs: 1, maxDelayMs: 4 });
  });
  afterEach(() => queue.close());

  it('runs one task per project at a time and gives the free slot to another project', async () => {
    await queue.enqueue({ id: 1, projectId: 10 });
    await queue.enqueue({ id: 2, projectId: 10 });
    await queue.enqueue({ id: 3, projectId: 20 });
    await runner.startedCount(2);
    expect(runner.started).toEqual([1, 3]);
    runner.finish(1);
    await runner.startedCount(3);
    expect(runner.started).toEqual([1, 3, 2]);
    runner.finish(2);
    runner.finish(3);
    await queue.drain();
  });

  it('takes projects in turn rather than in arrival order', async () => {
    const single = new InProcessQueue(runner, 1);
    try {
      for (const [id, projectId] of [
        [1, 10],
        [2, 10],
        [3, 10],
        [4, 20],
      ] as const) {
        await single.enqueue({ id, projectId });
      }
      for (let n = 1; n <= 4; n++) {
        await runner.startedCount(n);
        runner.finish(runner.started[n - 1]!);
      }
      expect(runner.started).toEqual([1, 4, 2, 3]);
    } finally {
      await single.close();
    }
  });

  it('runs again, later, a task whose run could not record its outcome', async () => {
    await queue.enqueue({ id: 7, projectId: 1 });
    await runner.startedCount(1);
    runner.fail(7, 'database or disk is full');
    await runner.startedCount(2);
    expect(runner.started).toEqual([7, 7]);
    runner.finish(7);
    await queue.drain();
  });

  it('queues a task once however often it is enqueued', async () => {
    await queue.enqueue({ id: 5, projectId: 1 });
    await queue.enqueue({ id: 5, projectId: 1 });
    await runner.startedCount(1);
    runner.finish(5);
    await queue.drain();
    expect(runner.started).toEqual([5]);
  });
});
