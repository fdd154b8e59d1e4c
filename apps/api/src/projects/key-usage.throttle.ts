/** How often, at most, a key's `last_used_at` is written (milliseconds). */
export const KEY_USAGE_INTERVAL_MS = 60_000;

/**
 * Decides when a key's last use is worth writing: the first use this process sees, then at most
 * once per interval. In memory and per process, so several processes may each write once a
 * minute; the value stays within about a minute of the truth, which is what a listing needs.
 */
export class KeyUsageThrottle {
  private readonly written = new Map<number, number>();

  constructor(private readonly intervalMs = KEY_USAGE_INTERVAL_MS) {}

  /** Whether to write a use of `keyId` at `now`; a true answer counts as written. */
  due(keyId: number, now: number): boolean {
    const last = this.written.get(keyId);
    if (last !== undefined && now - last < this.intervalMs) return false;
    this.written.set(keyId, now);
    return true;
  }
}
