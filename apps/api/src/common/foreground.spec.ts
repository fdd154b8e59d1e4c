import { ForegroundGate } from './foreground';

describe(ForegroundGate.name, () => {
  it('clears at once with nothing in flight', async () => {
    const gate = new ForegroundGate();
    const t0 = Date.now();
    await gate.clear(10_000);
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it('clears when the last request in flight leaves, and counts each leave once', async () => {
    const gate = new ForegroundGate();
    const a = gate.enter();
    const b = gate.enter();
    let cleared = false;
    const waiting = gate.clear(60_000).then(() => (cleared = true));
    a();
    a();
    await new Promise((r) => setTimeout(r, 20));
    expect(gate.inFlight).toBe(1);
    expect(cleared).toBe(false);
    b();
    await waiting;
    expect(cleared).toBe(true);
    expect(gate.inFlight).toBe(0);
  });

  it('clears after the longest wait even while requests stay in flight', async () => {
    const gate = new ForegroundGate();
    gate.enter();
    const t0 = Date.now();
    await gate.clear(30);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(25);
    expect(gate.inFlight).toBe(1);
  });
});
