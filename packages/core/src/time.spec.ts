import { formatMicros, toIsoUtc } from './time';

describe(toIsoUtc.name, () => {
  it('turns the stored form into ISO 8601 UTC with milliseconds', () => {
    expect(toIsoUtc('2026-11-25T10:00:00.123456')).toBe('2026-11-25T10:00:00.123Z');
  });

  it("reads SQLite's space-separated form and short or missing fractions", () => {
    expect(toIsoUtc('2026-11-25 10:00:00.000000')).toBe('2026-11-25T10:00:00.000Z');
    expect(toIsoUtc('2026-11-25 10:00:00.5')).toBe('2026-11-25T10:00:00.500Z');
    expect(toIsoUtc('2026-11-25 10:00:00')).toBe('2026-11-25T10:00:00.000Z');
  });

  it('round-trips what nowTimestamp writes', () => {
    const micros = Date.UTC(2026, 10, 25, 10, 0, 0, 42) * 1000 + 7;
    expect(toIsoUtc(formatMicros(micros))).toBe('2026-11-25T10:00:00.042Z');
  });

  it('leaves text that is not a stored timestamp unchanged', () => {
    expect(toIsoUtc('now')).toBe('now');
    expect(toIsoUtc('2026-13-45 10:00:00')).toBe('2026-13-45 10:00:00');
  });
});
