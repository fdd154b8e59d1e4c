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
