import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { KbqaError } from '@kbqa/core';
import { HostScheduler } from './host.scheduler';

/** Lets pending promise callbacks run without advancing fake time. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe(HostScheduler.name, () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('runs at most `concurrency` requests per host at once', async () => {
    const scheduler = new HostScheduler(2);
    const started: number[] = [];
    const releases: Array<() => void> = [];
    for (let i = 0; i < 4; i++) {
      void scheduler.acquire('a.example', 0).then((release) => {
        started.push(i);
        releases.push(release);
      });
    }
    await settle();
    expect(started).toEqual([0, 1]);
    releases[0]?.();
    await settle();
    expect(started).toEqual([0, 1, 2]);
    releases[1]?.();
    releases[1]?.(); // releasing twice frees one slot only
    await settle();
    expect(started).toEqual([0, 1, 2, 3]);
  });

  it('does not make different hosts wait for each other', async () => {
    const scheduler = new HostScheduler(1);
    await scheduler.acquire('a.example', 0);
    let other = false;
    void scheduler.acquire('b.example', 0).then(() => (other = true));
    await settle();
    expect(other).toBe(true);
  });

  it('spaces request starts to the same host by the crawl delay', async () => {
    const scheduler = new HostScheduler(4);
    const started: number[] = [];
    for (let i = 0; i < 3; i++) {
      void scheduler.acquire('a.example', 1000).then((release) => {
        started.push(Date.now());
        release();
      });
    }
    await settle();
    expect(started).toEqual([0]);
    await jest.advanceTimersByTimeAsync(999);
    expect(started).toEqual([0]);
    await jest.advanceTimersByTimeAsync(1);
    expect(started).toEqual([0, 1000]);
    await jest.advanceTimersByTimeAsync(1000);
    expect(started).toEqual([0, 1000, 2000]);
  });

  it('gives up waiting when the caller aborts, and frees its place', async () => {
    const scheduler = new HostScheduler(1);
    const first = await scheduler.acquire('a.example', 0);
    const controller = new AbortController();
    const waiting = scheduler.acquire('a.example', 0, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(KbqaError);
    first();
    const third = await scheduler.acquire('a.example', 0);
    third();
    expect(scheduler.trackedHosts).toBe(0);
  });
});
