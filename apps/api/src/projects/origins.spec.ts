import { KbqaError } from '@kbqa/core';
import { normalizeOrigins, originListed } from './origins';

describe(normalizeOrigins.name, () => {
  const refused = (input: string[]) => {
    try {
      normalizeOrigins(input);
    } catch (e) {
      expect(e).toBeInstanceOf(KbqaError);
      expect((e as KbqaError).code).toBe('BAD_REQUEST');
      return (e as KbqaError).message;
    }
    throw new Error(`accepted ${JSON.stringify(input)}`);
  };

  it('keeps exact http and https origins, with or without a port', () => {
    expect(
      normalizeOrigins(['https://docs.example.com', 'http://127.0.0.1:8080', 'http://localhost:3000']),
    ).toEqual(['https://docs.example.com', 'http://127.0.0.1:8080', 'http://localhost:3000']);
  });

  it('trims blanks and one trailing slash, drops empty entries and duplicates', () => {
    expect(normalizeOrigins([' https://a.example/ ', '', 'https://a.example', '  '])).toEqual([
      'https://a.example',
    ]);
  });

  it('accepts "*" alone and refuses it next to other origins', () => {
    expect(normalizeOrigins(['*'])).toEqual(['*']);
    expect(refused(['*', 'https://a.example'])).toContain('"*"');
  });

  it('refuses paths, queries, fragments and credentials, naming the value and the right form', () => {
    expect(refused(['https://a.example/docs'])).toContain('did you mean https://a.example?');
    expect(refused(['https://a.example?x=1'])).toContain('"https://a.example?x=1"');
    expect(refused(['https://a.example#top'])).toContain('did you mean https://a.example?');
    expect(refused(['https://user@a.example'])).toContain('"https://user@a.example"');
  });

  it('refuses forms browsers never send: upper case, default ports', () => {
    expect(refused(['https://Docs.Example.com'])).toContain('did you mean https://docs.example.com?');
    expect(refused(['https://a.example:443'])).toContain('did you mean https://a.example?');
  });

  it('refuses other schemes, bare hosts, wildcards in hosts and junk', () => {
    for (const bad of [
      'ftp://a.example',
      'file:///etc',
      'a.example',
      'https://*.example.com',
      'null',
      '**',
    ]) {
      expect(refused([bad])).toContain(`"${bad}"`);
    }
  });

  it('caps the list at 100 origins', () => {
    const many = Array.from({ length: 101 }, (_, i) => `https://s${i}.example`);
    expect(refused(many)).toContain('at most 100');
  });
});

describe(originListed.name, () => {
  it('matches exactly, or anything under "*"', () => {
    expect(originListed(['https://a.example'], 'https://a.example')).toBe(true);
    expect(originListed(['https://a.example'], 'https://a.example.evil')).toBe(false);
    expect(originListed(['https://a.example'], 'http://a.example')).toBe(false);
    expect(originListed(['*'], 'https://anything.example')).toBe(true);
    expect(originListed([], 'https://a.example')).toBe(false);
  });
});
