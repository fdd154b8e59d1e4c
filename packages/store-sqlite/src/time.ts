/**
 * Timestamps are stored as UTC text `YYYY-MM-DDTHH:mm:ss.SSSSSS` (what the API returns), which
 * sorts and range-filters as plain strings. Sub-millisecond digits come from the monotonic clock
 * so two rows written in the same millisecond still order correctly.
 */
export function nowTimestamp(): string {
  const micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  return formatMicros(micros);
}

export function formatMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const frac = String(micros % 1_000_000).padStart(6, '0');
  return new Date(ms).toISOString().slice(0, 19) + '.' + frac;
}

/** `date_added` form of sources: stored timestamp plus the UTC offset. */
export function withUtcOffset(timestamp: string): string {
  return `${timestamp}+00:00`;
}

/** The stored form of a moment `ms` milliseconds after the epoch. */
export function timestampAt(ms: number): string {
  return formatMicros(Math.floor(ms) * 1000);
}

/** A stored timestamp as ISO 8601 UTC with milliseconds (`2026-11-25T10:00:00.000Z`). */
export function isoUtc(timestamp: string): string;
export function isoUtc(timestamp: string | null): string | null;
export function isoUtc(timestamp: string | null): string | null {
  return timestamp === null ? null : `${timestamp.slice(0, 23)}Z`;
}
