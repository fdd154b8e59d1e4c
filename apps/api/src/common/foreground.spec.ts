import { ForegroundGate } from './foreground';

describe(ForegroundGate.name, () => {
  // Fake timers: the waits are counted on jest's clock, so the machine's load cannot move them.
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** Whether `promise` has settled once every pending microtask (and nothing on the clock) has run. */
  async function settled(promise: Promise<unknown>): Promise<boolean> {
    let done = false;
    void promise.then(() => (done = true));
    await jest.advanceTimersByTimeAsync(0);
    return done;
  }

  it('clears at once with nothing in flight, without waiting on a timer', async () => {
    const gate = new ForegroundGate();
    expect(await settled(gate.clear(10_000))).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('clears when the last request in flight leaves, and counts each leave once', async () => {
    const gate = new ForegroundGate();
    const a = gate.enter();
    const b = gate.enter();
    let cleared = false;
    const waiting = gate.clear(60_000).then(() => (cleared = true));
    a();
    a();
    await jest.advanceTimersByTimeAsync(59_999);
    expect(gate.inFlight).toBe(1);
    expect(cleared).toBe(false);
    b();
    expect(await settled(waiting)).toBe(true);
    expect(gate.inFlight).toBe(0);
    // The wait ended with the leave: its timer is gone rather than left to fire later.
    expect(jest.getTimerCount()).toBe(0);
  });

  it('clears after the longest wait even while requests stay in flight', async () => {
    const gate = new ForegroundGate();
    gate.enter();
    const waiting = gate.clear(30);
    await jest.advanceTimersByTimeAsync(29);
    expect(await settled(waiting)).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await settled(waiting)).toBe(true);
    expect(gate.inFlight).toBe(1);
  });
});
