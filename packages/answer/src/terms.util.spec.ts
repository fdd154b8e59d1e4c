import { containsIdentifier, identifiers, negation, stem, terms } from './terms.util';

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
  it('gives "better" the term of "best", which no suffix relates it to', () => {
    expect(terms('which platform is better')).toContain(terms('the best way')[0]);
  });

  it('gives the words of one variant group one term, whole words only', () => {
    expect(terms('log lines')[0]).toBe(terms('the logger')[0]);
    expect(terms('logging')).toEqual(terms('loggers'));
    expect(terms('over https')).toEqual(terms('over TLS'));
    expect(terms('http')).not.toEqual(terms('https'));
    // camelCase parts too: `logLevel` holds the term of "logger".
    expect(terms('logLevel')).toContain(terms('logger')[0]);
  });
});

describe(negation.name, () => {
  it('excludes the first content word after "without", "except" or "excluding"', () => {
    const q = negation('How can I test without actually listening on a port?');
    expect([...q.excluded]).toEqual(terms('listening'));
    expect([...q.framing].sort()).toEqual(terms('without actually').sort());
    expect([...negation('Log every route except the health check').excluded]).toEqual(terms('health'));
    expect([...negation('Does it work without HTTPS?').excluded]).toEqual(terms('tls'));
  });

  it('finds none in a question that excludes nothing, nor in "other than"', () => {
    expect(negation('How do I listen on a port?').excluded.size).toBe(0);
    expect(negation('How do I accept a format other than JSON?').excluded.size).toBe(0);
  });
});

describe(identifiers.name, () => {
  it('reads a command-line flag as a name, written with or without code marks', () => {
    expect(identifiers('How do I silence warnings with --no-deprecation?')).toContain('--no-deprecation');
    expect(identifiers('Run `node --inspect app.js`')).toContain('--inspect');
    expect(identifiers('Run node --inspect app.js')).toContain('--inspect');
    expect(identifiers('a well-known--dash')).toEqual([]);
  });

  it('matches a flag only as a whole name', () => {
    expect(containsIdentifier('start node with --inspect-brk', '--inspect')).toBe(false);
    expect(containsIdentifier('start node with --inspect to debug', '--inspect')).toBe(true);
  });

  it('finds a name on the request object spelled req.x or request.x', () => {
    expect(containsIdentifier('the `request.connection` property has been removed', 'req.connection')).toBe(
      true,
    );
    expect(containsIdentifier('`req.hostname` would include the port', 'request.hostname')).toBe(true);
    expect(containsIdentifier('the `request.socket` property', 'req.connection')).toBe(false);
  });
});
