import { KbqaError } from '@kbqa/core';
/** The one way both generators report a caller's abort: KbqaError('ABORTED'). */
export declare function abortedError(): KbqaError;
export declare function throwIfAborted(signal: AbortSignal | undefined): void;
