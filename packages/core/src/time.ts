/**
 * Timestamps are stored as UTC text `YYYY-MM-DDTHH:mm:ss.SSSSSS` by every store (the API returns
 * them as ISO 8601, see toIsoUtc), which sorts and range-filters as plain strings. Sub-millisecond
 * digits come from the monotonic clock so two rows written in the same millisecond still order
 * correctly.
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

/** {@link toIsoUtc} of a timestamp that may be absent. */
export function isoUtc(timestamp: string): string;
export function isoUtc(timestamp: string | null): string | null;
export function isoUtc(timestamp: string | null): string | null {
  return timestamp === null ? null : toIsoUtc(timestamp);
}

/**
 * A stored timestamp (`YYYY-MM-DDTHH:mm:ss.SSSSSS`, or SQLite's `YYYY-MM-DD HH:MM:SS.ffffff`, both
 * UTC without an offset) as ISO 8601 UTC with milliseconds (`2026-11-25T10:00:00.000Z`), the form
 * the operator API returns. Digits past the millisecond are dropped; text that is not a stored
 * timestamp is returned unchanged rather than turned into an exception in a listing.
 */
export function toIsoUtc(stored: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?$/.exec(stored);
  if (!m) return stored;
  const ms = (m[3] ?? '').padEnd(3, '0').slice(0, 3);
  const date = new Date(`${m[1]}T${m[2]}.${ms}Z`);
  return Number.isNaN(date.getTime()) ? stored : date.toISOString();
}
