import { describe, expect, it } from '@jest/globals';
import { KbqaError } from '@kbqa/core';
import { nonHtmlExtension, normalizeUrl, pathMatcher, validateSiteRequest } from './url-rules';

describe(normalizeUrl.name, () => {
  it('lower-cases the host, drops the default port, fragment, credentials and a trailing slash', () => {
    expect(normalizeUrl('HTTP://u:p@Docs.Example.COM:80/Guide/Intro/#part')).toBe(
      'http://docs.example.com/Guide/Intro',
    );
    expect(normalizeUrl('https://example.com:443/')).toBe('https://example.com/');
    expect(normalizeUrl('https://example.com')).toBe('https://example.com/');
    expect(normalizeUrl('https://example.com:8443/a//')).toBe('https://example.com:8443/a');
  });

  it('sorts query parameters by name, keeps their values and drops utm_* and an empty query', () => {
    expect(normalizeUrl('https://e.com/p?b=2&a=1&a=0&utm_source=x')).toBe('https://e.com/p?a=1&a=0&b=2');
    expect(normalizeUrl('https://e.com/p?')).toBe('https://e.com/p');
    expect(normalizeUrl('https://e.com/p?utm_medium=y')).toBe('https://e.com/p');
  });

  it('resolves against a base and refuses non-http schemes', () => {
    expect(normalizeUrl('../b/', 'https://e.com/a/c/')).toBe('https://e.com/a/b');
    expect(normalizeUrl('mailto:a@b.c')).toBeUndefined();
    expect(normalizeUrl('::nope')).toBeUndefined();
  });
});

describe(pathMatcher.name, () => {
  it('matches whole pathnames, with * as any run of characters', () => {
    const match = pathMatcher(['/docs/*', '/blog', '*.html'], 'includePaths')!;
    expect(match('/docs/a')).toBe(true);
    expect(match('/docs/a/b')).toBe(true);
    expect(match('/docs')).toBe(false);
    expect(match('/documentation')).toBe(false);
    expect(match('/blog')).toBe(true);
    expect(match('/x/page.html')).toBe(true);
    expect(match('/x/page.htm')).toBe(false);
  });

  it('matches a pattern without * as the path and everything under it, not a longer name', () => {
    const match = pathMatcher(['/docs/graphql'], 'excludePaths')!;
    expect(match('/docs/graphql')).toBe(true);
    expect(match('/docs/graphql/')).toBe(true);
    expect(match('/docs/graphql/x')).toBe(true);
    expect(match('/docs/graphql/x/y')).toBe(true);
    expect(match('/docs/graphql-old')).toBe(false);
    expect(match('/docs/graphqlx/y')).toBe(false);
    expect(match('/docs')).toBe(false);
    expect(match('/other/docs/graphql')).toBe(false);
  });

  it('takes / alone as the home page, since every path is under it', () => {
    const match = pathMatcher(['/'], 'includePaths')!;
    expect(match('/')).toBe(true);
    expect(match('/docs')).toBe(false);
  });

  it('ignores a trailing slash in a pattern and escapes regex characters', () => {
    const match = pathMatcher(['/api/v1.0/'], 'excludePaths')!;
    expect(match('/api/v1.0')).toBe(true);
    expect(match('/api/v1.0/users')).toBe(true);
    expect(match('/api/v1x0')).toBe(false);
  });

  it('lists the patterns, as given, that matched none of the paths asked about', () => {
    const match = pathMatcher(['/docs/graphql', '/docs/graphq/', '/blog/*', '*.pdf'], 'excludePaths')!;
    expect(match.unmatched()).toEqual(['/docs/graphql', '/docs/graphq/', '/blog/*', '*.pdf']);
    match('/docs/graphql/schema');
    match('/blog/a.pdf');
    expect(match.unmatched()).toEqual(['/docs/graphq/']);
  });

  it('is absent without patterns and refuses patterns that are not paths', () => {
    expect(pathMatcher(undefined, 'includePaths')).toBeUndefined();
    expect(pathMatcher([], 'includePaths')).toBeUndefined();
    expect(() => pathMatcher(['docs'], 'includePaths')).toThrow(/includePaths/);
  });
});

describe(nonHtmlExtension.name, () => {
  it('names binary and data extensions, not page-like ones', () => {
    expect(nonHtmlExtension('/a/manual.PDF')).toBe('pdf');
    expect(nonHtmlExtension('/logo.png')).toBe('png');
    expect(nonHtmlExtension('/page.html')).toBeUndefined();
    expect(nonHtmlExtension('/docs/v1.2')).toBeUndefined();
    expect(nonHtmlExtension('/docs/intro')).toBeUndefined();
  });
});

describe(validateSiteRequest.name, () => {
  it('accepts http(s) sites and refuses other schemes, credentials and bad patterns, naming the problem', () => {
    expect(() =>
      validateSiteRequest({ url: 'https://docs.example.com/', includePaths: ['/docs/*'] }, 'crawled'),
    ).not.toThrow();
    expect(() => validateSiteRequest({ url: 'not a url' }, 'crawled')).toThrow(/not a valid URL/);
    expect(() => validateSiteRequest({ url: 'file:///etc/passwd' }, 'crawled')).toThrow(
      /only http and https sites can be crawled/,
    );
    expect(() => validateSiteRequest({ url: 'https://u:p@docs.example.com/' }, 'loaded')).toThrow(
      /credentials cannot be loaded/,
    );
    expect(() =>
      validateSiteRequest({ url: 'https://docs.example.com/', excludePaths: [''] }, 'crawled'),
    ).toThrow(KbqaError);
  });
});
