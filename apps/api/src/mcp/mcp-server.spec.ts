import 'reflect-metadata';
import { formatPassages } from './mcp-server';
import { bearerToken } from './mcp-route';

describe(formatPassages.name, () => {
  it('numbers the passages with title, link and score above their text', () => {
    const text = formatPassages([
      { link: 'https://docs/a', title: 'A', content: 'first', relevance_score: 0.9 },
      { link: 'b.md', content: 'second', relevance_score: 0.25 },
    ]);
    expect(text).toBe('[1] A - https://docs/a (relevance 0.9)\nfirst\n\n[2] b.md (relevance 0.25)\nsecond');
  });

  it('says so when nothing matches', () => {
    expect(formatPassages([])).toMatch(/No passage/);
  });
});

describe(bearerToken.name, () => {
  it('reads the token of a Bearer header, any case of the scheme', () => {
    expect(bearerToken('Bearer kbqa_sk_abc')).toBe('kbqa_sk_abc');
    expect(bearerToken('bearer   kbqa_sk_abc ')).toBe('kbqa_sk_abc');
  });

  it('gives nothing for another scheme, a missing token or no header', () => {
    expect(bearerToken('Basic dXNlcjpwYXNz')).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
