import { abortedError, throwIfAborted } from './abort';
import { KbqaError } from './errors';

describe(throwIfAborted.name, () => {
  it('throws a KbqaError coded ABORTED once the signal is aborted', () => {
    const controller = new AbortController();
    controller.abort();
    expect(() => throwIfAborted(controller.signal)).toThrow(KbqaError);
    expect(() => throwIfAborted(controller.signal)).toThrow(expect.objectContaining({ code: 'ABORTED' }));
  });

  it('returns quietly for a live signal or none', () => {
    expect(() => throwIfAborted(new AbortController().signal)).not.toThrow();
    expect(() => throwIfAborted(undefined)).not.toThrow();
  });
});

describe(abortedError.name, () => {
  it('maps to HTTP 499 and keeps its cause', () => {
    const cause = new Error('socket closed');
    const error = abortedError({ cause });
    expect(error.status).toBe(499);
    expect(error.cause).toBe(cause);
  });
});
