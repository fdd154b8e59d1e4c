import { KbqaError } from '@kbqa/core';

/**
 * The model is busy: every sequence is generating and the wait queue is full. Code `MODEL_BUSY`
 * (503); `retryAfterSeconds` is for a `Retry-After` header.
 */
export class LocalLlmBusyError extends KbqaError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      'MODEL_BUSY',
      `The local model is busy: every sequence is answering and the wait queue is full; retry in ${retryAfterSeconds} s`,
    );
    this.name = 'LocalLlmBusyError';
  }
}

interface Waiter {
  resolve: (release: () => void) => void;
  reject: (error: unknown) => void;
}

/**
 * A counting semaphore over the context's sequences with a bounded wait queue, first come first
 * served. A request past the queue is refused at once rather than left to wait behind answers
 * that take seconds each on a CPU.
 */
export class SequenceSlots {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    private readonly sequences: number,
    private readonly maxQueue: number,
    private readonly retryAfterSeconds = 5,
  ) {}

  /** Whether a request now would be refused. */
  get full(): boolean {
    return this.running >= this.sequences && this.waiting.length >= this.maxQueue;
  }

  get state(): { running: number; waiting: number; sequences: number; maxQueue: number } {
    return {
      running: this.running,
      waiting: this.waiting.length,
      sequences: this.sequences,
      maxQueue: this.maxQueue,
    };
  }

  throwIfFull(): void {
    if (this.full) throw new LocalLlmBusyError(this.retryAfterSeconds);
  }

  /** Resolves with the function that frees the slot (call it once). */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.running < this.sequences) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    if (this.full) return Promise.reject(new LocalLlmBusyError(this.retryAfterSeconds));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
        reject,
      };
      const onAbort = (): void => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new KbqaError('ABORTED', 'Answer generation was aborted by the caller'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter: `running` stays the same.
      if (next) next.resolve(this.releaser());
      else this.running--;
    };
  }
}
