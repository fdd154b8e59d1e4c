import { variantHead, WORD_VARIANT_GROUPS, wordVariants } from './word-variants';

describe('word variants', () => {
  it('gives the other words of a word’s group, and none for an ungrouped word', () => {
    expect(wordVariants('logger')).toEqual(['log', 'logs', 'loggers', 'logging']);
    expect(wordVariants('TLS')).toEqual(['ssl', 'https']);
    expect(wordVariants('route')).toEqual([]);
  });

  it('puts every word in one group only', () => {
    const all = WORD_VARIANT_GROUPS.flat();
    expect(new Set(all).size).toBe(all.length);
  });

  it('names each grouped word’s group by its first word, by whole words only', () => {
    expect(variantHead('Logging')).toBe('log');
    expect(variantHead('https')).toBe('tls');
    // "http" is not "https": only the whole word belongs to the group.
    expect(variantHead('http')).toBeUndefined();
  });
});
