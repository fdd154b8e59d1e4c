/**
 * One source list of stop words, in groups. Every word is in exactly one group; each use takes
 * the groups that suit it:
 *
 * - {@link STOP_WORDS} (all groups): terms of extractive answers, follow-up questions and
 *   extractive summaries, where a question's wording ("how do I use…", "explain") and the
 *   letters left by splitting "e.g." or "can't" say nothing about the topic.
 * - {@link QUERY_STOP_WORDS} (the query group only): words dropped from a BM25 search query.
 *   BM25 already gives common words a low weight, and a query keeps words such as "not", "all",
 *   "only" or "get" that tell pages apart. More query stop words were tried and
 *   rejected on bench/retrieval/quality.js (docs/retrieval-experiments.md, "Extra stop words").
 *
 * The chunker's summary list also had "after before between down again further us": they are
 * content words now ("runs before the handler"); the answer generator never dropped them.
 * Prepositions of spread or direction ("across", "among", "throughout", "towards") are function
 * words: a question says "reuse a schema across routes" where pages say "in several routes", and
 * as a word no page has, "across" counted against every passage's coverage of the question.
 */

/** Stop words everywhere, search queries included: the words of almost every question. */
const QUERY =
  'a an and are as at be but by can could do does did for from how i if in into is it its me my of on ' +
  'or our should so that the their them then there these this those to was we what when where which who ' +
  'why will with would you your use using used about any some here';

/** Further function words: common in text, too common in a passage to tell sentences apart. */
const FUNCTION =
  'been being doing done had has have having he her hers him his itself just more most no nor not off ' +
  'once only other ours out over own same she such than theirs they through too under until up very ' +
  'were while whom yours also each few both all let lets via like may might must shall ' +
  'across among amongst onto upon throughout along toward towards';

/** The wording of a request ("please explain how to get…"), not its topic. */
const REQUEST =
  'make way possible please explain tell need want get know show thing things something anything work ' +
  'works one ones';

/** Letters left by splitting abbreviations and contractions at punctuation ("e.g.", "can't"). */
const FRAGMENT = 'e g ie eg etc s t re ll ve d m';

function words(list: string): string[] {
  return list.split(' ');
}

/** Every stop word: the query group and the function, request and fragment groups. */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  ...words(QUERY),
  ...words(FUNCTION),
  ...words(REQUEST),
  ...words(FRAGMENT),
]);

/** The subset of {@link STOP_WORDS} dropped from search queries (see the module comment). */
export const QUERY_STOP_WORDS: ReadonlySet<string> = new Set(words(QUERY));

/** Whether `word` (any case) is in {@link STOP_WORDS}. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}

/** The groups, for the test that checks every word is in exactly one. */
export const STOP_WORD_GROUPS: Readonly<Record<string, readonly string[]>> = {
  query: words(QUERY),
  function: words(FUNCTION),
  request: words(REQUEST),
  fragment: words(FRAGMENT),
};
