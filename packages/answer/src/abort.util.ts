import { KbqaError } from '@kbqa/core';

/** The one way both generators report a caller's abort: KbqaError('ABORTED'). */
export function abortedError(): KbqaError {
  return new KbqaError('ABORTED', 'Answer generation was aborted by the caller');
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedError();
}
