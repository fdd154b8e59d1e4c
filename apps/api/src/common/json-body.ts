import { KbqaError } from '@kbqa/core';
import type { FastifyInstance } from 'fastify';

/** Deeper bodies are refused: no request of the API nests more than a few levels. */
export const MAX_JSON_DEPTH = 32;

/** Keys that would reach an object's prototype when a body is copied or transformed. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor']);

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
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(new KbqaError('BAD_REQUEST', 'Malformed JSON in request body'), undefined);
    }
    if (typeof parsed !== 'object' || parsed === null) {
      return done(new KbqaError('BAD_REQUEST', 'the request body must be a JSON object'), undefined);
    }
    const problem = shapeProblem(parsed);
    if (problem) return done(new KbqaError('BAD_REQUEST', problem), undefined);
    done(null, parsed);
  });
}

/**
 * Walks the parsed body without recursion (a 6,000-level array overflowed the stack of the
 * validation that came after it, a 500 with a stack trace per request) and names the first
 * thing no request of the API may hold: nesting past MAX_JSON_DEPTH or a prototype key.
 */
export function shapeProblem(root: object): string | undefined {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 1 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_JSON_DEPTH) return `the request body nests deeper than ${MAX_JSON_DEPTH} levels`;
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key)) return `the request body may not contain the key "${key}"`;
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1 });
    }
  }
  return undefined;
}
