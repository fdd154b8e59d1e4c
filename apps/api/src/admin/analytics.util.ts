/** Pure helpers of the operator analytics: day ranges, rating shares and conversation durations. */

/** Days the analytics cover when no range is given: the last 30 up to today (UTC). */
export const DEFAULT_RANGE_DAYS = 30;
/** Longest range one analytics call covers (two years, day by day). */
export const MAX_RANGE_DAYS = 731;

const DAY_MS = 86_400_000;

function dayMs(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The range of a request: both ends as given, else `to` today (UTC) and `from` 29 days before it. */
export function resolveRange(
  range: { from?: string; to?: string },
  now = Date.now(),
): { from: string; to: string } {
  const to = range.to ?? dayOf(now);
  const from = range.from ?? dayOf(dayMs(to) - (DEFAULT_RANGE_DAYS - 1) * DAY_MS);
  return { from, to };
}

/** Every day from `from` to `to`, both included. */
export function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = dayMs(from); t <= dayMs(to); t += DAY_MS) days.push(dayOf(t));
  return days;
}

/** Stored timestamp bounds (`YYYY-MM-DDTHH:mm:ss.SSSSSS`) of inclusive UTC days, for string comparison. */
export function storedBounds(range: { from?: string; to?: string }): { start?: string; end?: string } {
  return {
    start: range.from === undefined ? undefined : `${range.from}T00:00:00.000000`,
    end: range.to === undefined ? undefined : `${range.to}T23:59:59.999999`,
  };
}

/** A stored timestamp (UTC without offset) as milliseconds since the epoch. */
export function storedMs(stored: string): number {
  return Date.parse(`${stored.replace(' ', 'T').slice(0, 23)}Z`);
}

/** Questions per day with a zero for every day of the range that has none. */
export function fillDays(
  from: string,
  to: string,
  counts: ReadonlyMap<string, number>,
): Array<{ day: string; questions: number }> {
  return daysOf(from, to).map((day) => ({ day, questions: counts.get(day) ?? 0 }));
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export interface RatingSummary {
  answers: number;
  good: number;
  bad: number;
  unrated: number;
  /** Shares of `answers`, 0 to 1 (0 when there are no answers), to 4 decimals. */
  good_share: number;
  bad_share: number;
}

export function ratingSummary(answers: number, good: number, bad: number): RatingSummary {
  return {
    answers,
    good,
    bad,
    unrated: answers - good - bad,
    good_share: answers === 0 ? 0 : round(good / answers, 4),
    bad_share: answers === 0 ? 0 : round(bad / answers, 4),
  };
}

/** Upper bounds (exclusive, seconds) and labels of the duration chart; the last has none. */
export const DURATION_BUCKETS: ReadonlyArray<{ label: string; below: number }> = [
  { label: '<1 min', below: 60 },
  { label: '1–5 min', below: 300 },
  { label: '5–15 min', below: 900 },
  { label: '15–60 min', below: 3600 },
  { label: '>1 h', below: Number.POSITIVE_INFINITY },
];

export interface DurationSummary {
  ended: number;
  /** null when no conversation of the range ended. Seconds to 1 decimal. */
  median_seconds: number | null;
  mean_seconds: number | null;
  buckets: Array<{ label: string; count: number }>;
}

/** Median, mean and histogram of conversation durations (seconds). */
export function durationSummary(seconds: readonly number[]): DurationSummary {
  const sorted = [...seconds].sort((a, b) => a - b);
  const n = sorted.length;
  const buckets = DURATION_BUCKETS.map((b) => ({ label: b.label, count: 0 }));
  for (const s of sorted) {
    const i = DURATION_BUCKETS.findIndex((b) => s < b.below);
    buckets[i]!.count += 1;
  }
  if (n === 0) return { ended: 0, median_seconds: null, mean_seconds: null, buckets };
  const mid = Math.floor(n / 2);
  const median = n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const mean = sorted.reduce((a, b) => a + b, 0) / n;
  return { ended: n, median_seconds: round(median, 1), mean_seconds: round(mean, 1), buckets };
}
