import { KbqaError } from '@kbqa/core';
import {
  argumentsError,
  fillBody,
  fillUrl,
  maskHeaders,
  parseToolDefinition,
  placeholders,
  redactSecrets,
  SECRET_MASK,
} from './tool-definition';

const valid = {
  name: 'search_orders',
  description: 'Find orders',
  parameters: {
    type: 'object',
    properties: {
      q: { type: 'string' },
      limit: { type: 'integer' },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['q'],
  },
  method: 'post',
  url: 'https://api.example.com/orders/{q}?limit={limit}',
  headers: { Authorization: 'Bearer s3cret-value' },
  body: { query: '{q}', tags: '{tags}', note: 'about {q}' },
};

function refusal(input: unknown): string {
  try {
    parseToolDefinition(input);
  } catch (e) {
    expect(e).toBeInstanceOf(KbqaError);
    expect((e as KbqaError).code).toBe('BAD_REQUEST');
    return (e as KbqaError).message;
  }
  throw new Error('accepted');
}

describe('parseToolDefinition', () => {
  it('accepts a full definition, upper-cases the method and defaults public to false', () => {
    const def = parseToolDefinition(valid);
    expect(def.method).toBe('POST');
    expect(def.public).toBe(false);
    expect(def.headers).toEqual({ Authorization: 'Bearer s3cret-value' });
    expect(parseToolDefinition({ ...valid, public: true }).public).toBe(true);
  });

  it('refuses names outside the function-name rules', () => {
    expect(refusal({ ...valid, name: 'has space' })).toContain('name must be');
    expect(refusal({ ...valid, name: 'x'.repeat(65) })).toContain('name must be');
    expect(parseToolDefinition({ ...valid, name: 'A-b_9' }).name).toBe('A-b_9');
  });

  it('requires a description, an object schema and a known method', () => {
    expect(refusal({ ...valid, description: ' ' })).toBe('description is required');
    expect(refusal({ ...valid, parameters: { type: 'string' } })).toContain("type 'object'");
    expect(
      refusal({ ...valid, parameters: { type: 'object', properties: { a: { type: 'strin' } } } }),
    ).toContain('not a usable JSON Schema');
    expect(refusal({ ...valid, method: 'TRACE' })).toContain('method must be one of');
  });

  it('requires an http(s) URL whose placeholders are declared', () => {
    expect(refusal({ ...valid, url: 'ftp://x/{q}' })).toBe('url must be an http(s) URL');
    expect(refusal({ ...valid, url: 'https://api.example.com/{nope}' })).toContain('{nope} is not declared');
    expect(refusal({ ...valid, url: 'https://u:p@api.example.com/' })).toContain('credentials');
  });

  it('refuses undeclared body placeholders, a GET body, bad headers and unknown fields, never quoting a header value', () => {
    expect(refusal({ ...valid, body: { a: '{other}' } })).toContain('{other} is not declared');
    expect(refusal({ ...valid, method: 'GET' })).toBe('a GET tool cannot have a body');
    expect(refusal({ ...valid, headers: { 'Bad Name': 'x' } })).toContain('not a valid header name');
    const broken = refusal({ ...valid, headers: { Authorization: 'secret\r\nX: y' } });
    expect(broken).not.toContain('secret');
    expect(refusal({ ...valid, extra: 1 })).toContain('unknown field(s)');
  });
});

describe('argumentsError', () => {
  it('passes fitting arguments and names each failing field', () => {
    expect(argumentsError(valid.parameters, { q: 'x', limit: 3 })).toBeUndefined();
    expect(argumentsError(valid.parameters, { limit: 1.5 })).toMatch(/q: .*; limit: /);
    expect(argumentsError(valid.parameters, [])).toBe('arguments must be a JSON object');
  });
});

describe('fillUrl', () => {
  it('URL-encodes each argument and leaves absent ones empty', () => {
    expect(fillUrl('https://h/s/{q}?limit={limit}', { q: 'a b/c?' })).toBe('https://h/s/a%20b%2Fc%3F?limit=');
    expect(fillUrl('https://h/{n}/{b}', { n: 5, b: true })).toBe('https://h/5/true');
    expect(placeholders('https://h/{a}/{b-c}')).toEqual(['a', 'b-c']);
  });

  it('leaves an absent argument named like an inherited property empty', () => {
    expect(fillUrl('https://h/?c={constructor}&p={__proto__}', {})).toBe('https://h/?c=&p=');
    expect(fillBody({ c: '{constructor}', t: 'x{toString}' }, {})).toEqual({ c: null, t: 'x' });
  });
});

describe('fillBody', () => {
  it('puts the JSON value for an exact placeholder and interpolates text elsewhere', () => {
    expect(fillBody(valid.body, { q: 'x', tags: ['a', 'b'] })).toEqual({
      query: 'x',
      tags: ['a', 'b'],
      note: 'about x',
    });
    expect(fillBody({ n: '{n}', s: 'n={n}', list: ['{n}', 1, null] }, { n: 2 })).toEqual({
      n: 2,
      s: 'n=2',
      list: [2, 1, null],
    });
    expect(fillBody({ missing: '{n}' }, {})).toEqual({ missing: null });
  });
});

describe('redactSecrets', () => {
  it('replaces every occurrence of each secret, longest first, and skips values too short to be secrets', () => {
    expect(redactSecrets('token=abcd1234 again abcd1234', ['abcd1234'])).toBe(
      `token=${SECRET_MASK} again ${SECRET_MASK}`,
    );
    expect(redactSecrets('Bearer abcd1234', ['abcd1234', 'Bearer abcd1234'])).toBe(SECRET_MASK);
    expect(redactSecrets('version 1', ['1'])).toBe('version 1');
  });

  it('masks every header value', () => {
    expect(maskHeaders({ A: 'x', B: 'y' })).toEqual({ A: SECRET_MASK, B: SECRET_MASK });
  });
});
