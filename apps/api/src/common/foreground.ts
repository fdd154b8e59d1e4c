import { Injectable } from '@nestjs/common';

/**
 * Requests a reader is waiting on (chat), counted so that background work sharing the event loop
 * (ingestion) can step aside while any is in flight: a chat needs several turns of the event loop,
 * and behind each it waited for one ingestion write or merge step (bench/chat.js).
 */
@Injectable()
export class ForegroundGate {
  private active = 0;
  private waiters: Array<() => void> = [];

  /** Counts a request in flight until the function returned is called (once; later calls do nothing). */
  enter(): () => void {
    this.active++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.active--;
      if (this.active === 0) for (const wake of this.waiters.splice(0)) wake();
    };
  }

  /** Requests in flight now. */
  get inFlight(): number {
    return this.active;
  }

  /**
   * Resolves once no request is in flight, or after `maxWaitMs` at the latest, so background work
   * keeps going (at one step per `maxWaitMs`) under a steady stream of requests.
   */
  clear(maxWaitMs: number): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        const at = this.waiters.indexOf(done);
        if (at >= 0) this.waiters.splice(at, 1);
        resolve();
      };
      const timer = setTimeout(done, maxWaitMs);
      this.waiters.push(done);
    });
  }
}
