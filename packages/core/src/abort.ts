import { KbqaError } from './errors';

/**
 * How every part of kbqa reports that its caller cancelled it: a KbqaError coded ABORTED, never
 * the signal's own reason (a DOMException), so the code survives the queue and reaches the API.
 */
export function abortedError(options?: { cause?: unknown }): KbqaError {
  return new KbqaError('ABORTED', 'the operation was cancelled by its caller', options);
}

/**
 * Throws {@link abortedError} when `signal` is aborted. Node's `signal.throwIfAborted()` would
 * throw the signal's reason instead, which callers cannot tell from any other failure by code.
 */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedError();
}
