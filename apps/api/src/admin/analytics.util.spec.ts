import {
  daysOf,
  durationSummary,
  fillDays,
  ratingSummary,
  resolveRange,
  storedBounds,
  storedMs,
} from './analytics.util';

describe('resolveRange', () => {
  const now = Date.parse('2026-03-10T15:00:00Z');

  it('defaults to the last 30 days up to today (UTC)', () => {
    expect(resolveRange({}, now)).toEqual({ from: '2026-02-09', to: '2026-03-10' });
    expect(daysOf('2026-02-09', '2026-03-10')).toHaveLength(30);
  });

  it('keeps given ends and counts 30 days back from a given `to`', () => {
    expect(resolveRange({ from: '2026-01-01', to: '2026-01-05' }, now)).toEqual({
      from: '2026-01-01',
      to: '2026-01-05',
    });
    expect(resolveRange({ to: '2026-01-30' }, now)).toEqual({ from: '2026-01-01', to: '2026-01-30' });
  });
});

describe('fillDays', () => {
  it('lists every day of the range, zeros included, across a month end', () => {
    expect(fillDays('2026-02-27', '2026-03-02', new Map([['2026-03-01', 4]]))).toEqual([
      { day: '2026-02-27', questions: 0 },
      { day: '2026-02-28', questions: 0 },
      { day: '2026-03-01', questions: 4 },
      { day: '2026-03-02', questions: 0 },
    ]);
  });
});

describe('storedBounds and storedMs', () => {
  it('bound inclusive days in the stored form, and read stored timestamps as UTC', () => {
    expect(storedBounds({ from: '2026-01-01', to: '2026-01-02' })).toEqual({
      start: '2026-01-01T00:00:00.000000',
      end: '2026-01-02T23:59:59.999999',
    });
    expect(storedBounds({})).toEqual({ start: undefined, end: undefined });
    expect(storedMs('2026-01-01T00:01:00.500123')).toBe(Date.parse('2026-01-01T00:01:00.500Z'));
  });
});

describe('ratingSummary', () => {
  it('gives shares of all answers, and 0 without answers', () => {
    expect(ratingSummary(3, 1, 1)).toEqual({
      answers: 3,
      good: 1,
      bad: 1,
      unrated: 1,
      good_share: 0.3333,
      bad_share: 0.3333,
    });
    expect(ratingSummary(0, 0, 0)).toMatchObject({ good_share: 0, bad_share: 0, unrated: 0 });
  });
});

describe('durationSummary', () => {
  it('buckets by the bounds (lower bound included) and gives median and mean', () => {
    const s = durationSummary([30, 59.9, 60, 299, 300, 899, 900, 3599, 3600, 7200]);
    expect(s.buckets).toEqual([
      { label: '<1 min', count: 2 },
      { label: '1–5 min', count: 2 },
      { label: '5–15 min', count: 2 },
      { label: '15–60 min', count: 2 },
      { label: '>1 h', count: 2 },
    ]);
    expect(s.ended).toBe(10);
    expect(s.median_seconds).toBe(599.5);
    expect(s.mean_seconds).toBe(1694.7);
  });

  it('takes the middle value of an odd count, and null without ended conversations', () => {
    expect(durationSummary([10, 1000, 20]).median_seconds).toBe(20);
    expect(durationSummary([])).toEqual({
      ended: 0,
      median_seconds: null,
      mean_seconds: null,
      buckets: expect.arrayContaining([{ label: '<1 min', count: 0 }]),
    });
  });
});
