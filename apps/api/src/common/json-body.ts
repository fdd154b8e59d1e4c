import { KbqaError } from '@kbqa/core';
import type { FastifyInstance } from 'fastify';

/**
 * Every body is JSON whatever its Content-Type (some clients send text/plain or none). Fastify
 * enforces the size limit while reading: a larger Content-Length is refused before the body is
 * read, and a body without one is cut off as soon as it passes the limit (413).
 */
export function registerJsonBody(instance: FastifyInstance, limitBytes: number): void {
  instance.removeAllContentTypeParsers();
  instance.addContentTypeParser('*', { parseAs: 'string', bodyLimit: limitBytes }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null) {
        return done(new KbqaError('BAD_REQUEST', 'the request body must be a JSON object'), undefined);
      }
      done(null, parsed);
    } catch {
      done(new KbqaError('BAD_REQUEST', 'Malformed JSON in request body'), undefined);
    }
  });
}
