interface Pending<I, O> {
  item: I;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

/** How a {@link Batcher} runs: items per run at most, runs in flight at once. */
export interface BatcherOptions {
  maxBatch?: number;
  maxInFlight?: number;
}

/**
 * Runs items requested by concurrent callers together: one statement for all the items asked for
 * in one turn of the event loop (or while earlier runs were in flight), instead of one each. Each
 * statement costs PostgreSQL a round trip, a wake-up and, for a write, a commit, whatever it
 * carries; under many concurrent chats those fixed costs, not the rows, were most of its work.
 *
 * `run` gets the items in request order and returns one result per item, in the same order. A
 * caller is answered only when its run has finished (for a write: committed). A run of several
 * items that fails is retried one item per run, so one bad item (a row that violates a
 * constraint) fails alone, with its own error. An item alone waits one turn of the event loop,
 * so requests read in the same turn go together.
 */
export class Batcher<I, O> {
  private readonly queue: Array<Pending<I, O>> = [];
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    options: BatcherOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 200;
    this.maxInFlight = options.maxInFlight ?? 2;
  }

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        this.inFlight++;
        void this.settle(batch).finally(() => {
          this.inFlight--;
          this.schedule();
        });
      }
    });
  }

  private async settle(batch: Array<Pending<I, O>>): Promise<void> {
    try {
      const results = await this.runChecked(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(results[i]!));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      await Promise.all(
        batch.map((p) =>
          this.runChecked([p.item]).then(
            (results) => p.resolve(results[0]!),
            (e: unknown) => p.reject(e),
          ),
        ),
      );
    }
  }

  private async runChecked(items: I[]): Promise<O[]> {
    const results = await this.run(items);
    if (results.length !== items.length) {
      throw new Error(`a batch of ${items.length} item(s) gave ${results.length} result(s)`);
    }
    return results;
  }
}
