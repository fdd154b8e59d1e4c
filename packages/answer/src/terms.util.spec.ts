import { stem, terms } from './terms.util';

describe(stem.name, () => {
  it('reduces plurals and verb forms to one stem', () => {
    expect(stem('plugins')).toBe(stem('plugin'));
    expect(stem('registering')).toBe(stem('register'));
  });

  it('gives a four-letter word ending in e the stem of its -ed and -s forms', () => {
    expect(stem('type')).toBe(stem('typed'));
    expect(stem('types')).toBe(stem('typed'));
    expect(stem('code')).toBe(stem('coded'));
  });

  it('reads the plural of a number or status code as the number', () => {
    expect(stem('404s')).toBe('404');
    expect(stem('5xxs')).toBe('5xx');
    expect(terms('what about 404s?')).toContain('404');
  });

  it('keeps other words with digits whole', () => {
    expect(stem('http2')).toBe('http2');
    expect(stem('v4')).toBe('v4');
  });
});

describe(terms.name, () => {
  it('gives the words of one variant group one term, whole words only', () => {
    expect(terms('log lines')[0]).toBe(terms('the logger')[0]);
    expect(terms('logging')).toEqual(terms('loggers'));
    expect(terms('over https')).toEqual(terms('over TLS'));
    expect(terms('http')).not.toEqual(terms('https'));
    // camelCase parts too: `logLevel` holds the term of "logger".
    expect(terms('logLevel')).toContain(terms('logger')[0]);
  });
});
