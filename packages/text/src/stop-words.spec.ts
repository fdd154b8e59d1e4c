import { isStopWord, QUERY_STOP_WORDS, STOP_WORD_GROUPS, STOP_WORDS } from './stop-words';

describe('stop words', () => {
  it('lists every word in exactly one group, and STOP_WORDS is all of them', () => {
    const all = Object.values(STOP_WORD_GROUPS).flat();
    expect(new Set(all).size).toBe(all.length);
    expect([...STOP_WORDS].sort()).toEqual([...all].sort());
  });

  it('drops from search queries only the query group, a subset of STOP_WORDS', () => {
    expect([...QUERY_STOP_WORDS].every((w) => STOP_WORDS.has(w))).toBe(true);
    expect([...QUERY_STOP_WORDS].sort()).toEqual([...(STOP_WORD_GROUPS.query ?? [])].sort());
    // Words that tell pages apart stay in a search query (see the module comment).
    for (const w of ['not', 'more', 'all', 'only', 'get', 'explain', 'one']) {
      expect(QUERY_STOP_WORDS.has(w)).toBe(false);
      expect(STOP_WORDS.has(w)).toBe(true);
    }
    for (const w of ['how', 'do', 'i', 'the', 'use', 'what']) expect(QUERY_STOP_WORDS.has(w)).toBe(true);
  });

  it('covers question wording and the letters left by contractions, in any case', () => {
    for (const w of ['How', 'please', 'EXPLAIN', 'ones', 't', 'll', 'eg']) expect(isStopWord(w)).toBe(true);
    // Order words are content: hooks run "before" or "after" the handler.
    for (const w of ['plugin', 'reply', 'hook', 'before', 'after']) expect(isStopWord(w)).toBe(false);
  });

  it('drops prepositions of spread and direction from answers, not from search queries', () => {
    // "reuse a schema across routes": pages say "in several routes", never "across".
    for (const w of ['across', 'among', 'throughout', 'towards']) {
      expect(isStopWord(w)).toBe(true);
      expect(QUERY_STOP_WORDS.has(w)).toBe(false);
    }
    // Place words that tell contexts apart stay: "within a plugin", "per route".
    for (const w of ['within', 'per', 'inside']) expect(isStopWord(w)).toBe(false);
  });
});
