import { abortError } from './address.policy';

interface HostState {
  active: number;
  /** Earliest time the next request to this host may start (crawl-delay spacing). */
  nextStartAt: number;
  waiters: Array<() => void>;
}

/** Releases a slot taken with {@link HostScheduler.acquire}; safe to call twice. */
export type Release = () => void;

/**
 * Limits requests per host: at most `concurrency` at once, and starts spaced by the host's
 * crawl-delay. Waits are cancellable through the caller's signal.
 */
export class HostScheduler {
  private readonly hosts = new Map<string, HostState>();

  constructor(private readonly concurrency: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError('perHostConcurrency must be a positive integer');
    }
  }

  async acquire(host: string, delayMs: number, signal?: AbortSignal): Promise<Release> {
    const state = this.state(host);
    while (state.active >= this.concurrency) {
      await this.waitForSlot(state, signal);
    }
    state.active += 1;
    let released = false;
    const release: Release = () => {
      if (released) return;
      released = true;
      state.active -= 1;
      const next = state.waiters.shift();
      if (next) next();
      else if (state.active === 0 && state.nextStartAt <= Date.now()) this.hosts.delete(host);
    };
    // Reserve the start time before sleeping so concurrent callers queue up behind each other.
    const now = Date.now();
    const startAt = Math.max(now, state.nextStartAt);
    state.nextStartAt = startAt + Math.max(0, delayMs);
    try {
      await this.sleep(startAt - now, signal);
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }

  /** Number of hosts with state; for tests of cleanup. */
  get trackedHosts(): number {
    return this.hosts.size;
  }

  private state(host: string): HostState {
    let state = this.hosts.get(host);
    if (!state) {
      if (this.hosts.size >= 1000) this.sweep();
      state = { active: 0, nextStartAt: 0, waiters: [] };
      this.hosts.set(host, state);
    }
    return state;
  }

  /** Forgets idle hosts whose spacing has passed, so a long crawl does not grow the map. */
  private sweep(): void {
    const now = Date.now();
    for (const [host, state] of this.hosts) {
      if (state.active === 0 && state.waiters.length === 0 && state.nextStartAt <= now)
        this.hosts.delete(host);
    }
  }

  private waitForSlot(state: HostState, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortError(signal));
        return;
      }
      const wake = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const i = state.waiters.indexOf(wake);
        if (i >= 0) state.waiters.splice(i, 1);
        reject(abortError(signal));
      };
      state.waiters.push(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleep(ms, signal);
  }
}

/** A cancellable delay; rejects with the signal's error when aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    if (ms <= 0) {
      resolve();
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
