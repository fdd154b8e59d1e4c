/** A command line that does not make sense: the CLI prints the usage with the message. */
export class UsageError extends Error {}

/** A positive integer argument, or a usage error naming it. */
export function intArg(value: string | true | undefined, what: string): number {
  const n = typeof value === 'string' ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`${what} must be a positive integer`);
  return n;
}
