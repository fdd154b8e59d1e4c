import { KeyUsageThrottle } from './key-usage.throttle';

describe(KeyUsageThrottle.name, () => {
  it('writes the first use, then at most once per interval per key', () => {
    const throttle = new KeyUsageThrottle(60_000);
    expect(throttle.due(1, 1_000)).toBe(true);
    expect(throttle.due(1, 30_000)).toBe(false);
    expect(throttle.due(1, 60_999)).toBe(false);
    expect(throttle.due(1, 61_000)).toBe(true);
    expect(throttle.due(1, 61_001)).toBe(false);
  });

  it('keeps each key on its own schedule', () => {
    const throttle = new KeyUsageThrottle(60_000);
    expect(throttle.due(1, 0)).toBe(true);
    expect(throttle.due(2, 10)).toBe(true);
    expect(throttle.due(1, 20)).toBe(false);
  });
});
