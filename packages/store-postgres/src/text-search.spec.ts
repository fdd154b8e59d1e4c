import { questionTsQuery, searchText, tsQueryOf } from './text-search';

describe('searchText', () => {
  it('splits dotted, slashed and hyphenated names into words, as FTS5 does', () => {
    expect(searchText('Call reply.send() over HTTP/2 with fastify-plugin')).toBe(
      'Call reply send over HTTP 2 with fastify plugin',
    );
  });

  it('removes diacritics', () => {
    expect(searchText('café naïve')).toBe('cafe naive');
  });
});

describe('tsQueryOf', () => {
  it('ORs quoted words and makes a compound identifier a phrase', () => {
    expect(questionTsQuery('What does reply.send do?')).toBe("('reply') | ('send') | ('reply' <-> 'send')");
  });

  it('never lets tsquery syntax from the question through', () => {
    const query = tsQueryOf(['"a & !b"', '"it\'s"', '"x:*"', '"(y | z)"']);
    expect(query).toBe("('a' <-> 'b') | ('it' <-> 's') | ('x') | ('y' <-> 'z')");
  });

  it('is undefined without a word', () => {
    expect(tsQueryOf(['"!!"'])).toBeUndefined();
    expect(questionTsQuery('?')).toBeUndefined();
  });
});
