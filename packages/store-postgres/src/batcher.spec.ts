import { describe, expect, it } from '@jest/globals';
import { Batcher } from './batcher';

/** A run that records each batch it is given and doubles the items; `fails` items make it throw. */
function doubling(fails: (n: number) => boolean = () => false) {
  const batches: number[][] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const run = async (items: number[]): Promise<number[]> => {
    batches.push(items);
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    await new Promise((r) => setTimeout(r, 5));
    inFlight--;
    if (items.some(fails)) throw new Error(`bad item in ${items.join(',')}`);
    return items.map((n) => n * 2);
  };
  return { run, batches, mostInFlight: () => mostInFlight };
}

describe(Batcher.name, () => {
  it('runs the items asked for in one turn of the event loop together, each caller getting its own result', async () => {
    const r = doubling();
    const batcher = new Batcher(r.run);
    expect(await Promise.all([1, 2, 3, 4].map((n) => batcher.add(n)))).toEqual([2, 4, 6, 8]);
    expect(r.batches).toEqual([[1, 2, 3, 4]]);
  });

  it('queues what is asked while runs are in flight and runs it together after them', async () => {
    const r = doubling();
    const batcher = new Batcher(r.run, { maxInFlight: 1 });
    const first = batcher.add(1);
    await new Promise((resolve) => setImmediate(resolve));
    const later = [2, 3, 4].map((n) => batcher.add(n));
    expect(await Promise.all([first, ...later])).toEqual([2, 4, 6, 8]);
    expect(r.batches).toEqual([[1], [2, 3, 4]]);
  });

  it('keeps at most maxInFlight runs going and at most maxBatch items in a run', async () => {
    const r = doubling();
    const batcher = new Batcher(r.run, { maxBatch: 3, maxInFlight: 2 });
    const items = Array.from({ length: 10 }, (_, i) => i);
    expect(await Promise.all(items.map((n) => batcher.add(n)))).toEqual(items.map((n) => n * 2));
    expect(r.batches.every((b) => b.length <= 3)).toBe(true);
    expect(r.batches.flat()).toEqual(items);
    expect(r.mostInFlight()).toBe(2);
  });

  it('retries a failed run one item at a time, so only the bad item fails, with its own error', async () => {
    const r = doubling((n) => n === 3);
    const batcher = new Batcher(r.run);
    const results = await Promise.allSettled([1, 2, 3, 4].map((n) => batcher.add(n)));
    expect(results.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([
      2,
      4,
      'bad item in 3',
      8,
    ]);
    expect(r.batches).toEqual([[1, 2, 3, 4], [1], [2], [3], [4]]);
  });

  it('fails the callers of a run that gives a result count other than its item count', async () => {
    const batcher = new Batcher((items: number[]) => Promise.resolve(items.slice(1)));
    await expect(batcher.add(1)).rejects.toThrow('a batch of 1 item(s) gave 0 result(s)');
  });
});
