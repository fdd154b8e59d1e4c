import { QUERY_STOP_WORDS, variantHead } from '@kbqa/text';
import { porterStem } from './porter-stemmer';

const WORD = /[\p{L}\p{N}_]+/gu;
/** A dotted, slashed or hyphenated name as written in docs: `reply.send`, `HTTP/2`, `fastify-plugin`. */
const IDENTIFIER = /[\p{L}\p{N}_]+(?:[./-][\p{L}\p{N}_]+)+/gu;

/** An apostrophe suffix after a letter: `can't`, `client's`, `you're`, `I'm`, `we'll`, `they've`, `I'd`. */
const CLITIC = /(\p{L})['\u2019](?:s|t|re|ll|ve|d|m)\b/giu;

/**
 * Drops contraction and possessive suffixes. Split at the apostrophe they become one-letter
 * search terms (`t`, `s`) found in nearly every passage, which add noise to BM25 and count
 * against a passage's term coverage without saying anything about the question.
 */
function withoutClitics(text: string): string {
  return text.replace(CLITIC, '$1');
}

/** "without X", "except X", "excluding X" (articles and -ly words between allowed). */
const EXCLUDED =
  /\b(?:without|except|excluding)\s+(?:(?:an?|the|any|my|your|its|their|our|this|that|some|\w+ly)\s+)*[\p{L}\p{N}_$./-]+/giu;

/**
 * The text without what it excludes: "what about without TLS?" asks about what is not TLS, and
 * searching "tls" ranked the passages about TLS first; "test my routes without actually
 * listening" ranked the section on `fastify.listen()` over the one on `inject`. A question left
 * with no word of its own is searched by its context (the conversation's topic), see
 * planLexical. The answer generator reads the same words as excluded (@kbqa/answer
 * `negation`).
 */
function withoutExcluded(lower: string): string {
  return lower.replace(EXCLUDED, ' ').replace(QUESTION_FRAME, ' ');
}

/**
 * The frame of a question, not its topic: "what is X good for", "is there a way to", "what's the
 * best way to", "find out whether", "what happens when". Searched, "good" ranked Principles' "Good
 * Developer Experience" for "what are type providers good for?", and "way" or "find" weigh like
 * topic words in coverage. Left out of the search and of coverage (bench/retrieval/questions-dev5.json
 * section@5 0.66 -> 0.68, bench/answers dev2 key fact 0.78 -> 0.80, main sets unchanged);
 * "recommended way to" stays a topic ("What is the recommended way to connect to Postgres?"
 * lost Database.md at rank 1 without it).
 */
const QUESTION_FRAME =
  /\b(?:good\s+for|used\s+for|is\s+there\s+(?:a|any)\s+way\s+to|(?:the\s+)?(?:best|right|shortest|easiest|simplest|proper)\s+way\s+to|find\s+out|what\s+happens)\b/giu;

/**
 * The quoted FTS5 terms of a question, stop words dropped unless nothing else is left. Each
 * compound identifier is also one phrase term (`"reply res"` for `reply.res`): its parts are
 * common words, the phrase is rare, so BM25 ranks the passage that names it first.
 *
 * A word's variants (@kbqa/text `WORD_VARIANT_GROUPS`) are not searched, only counted in
 * coverage (queryStems, stemsFound). Searched, "logger" (on most pages of a logging chapter) added
 * its full BM25 to "log lines" and pushed the passage about log lines out of the top 5; hit@1 on
 * bench/retrieval/quality.js fell from 0.733 to 0.711.
 */
export function matchTerms(text: string): string[] {
  const lower = withoutExcluded(withoutClitics(text).toLowerCase());
  const terms = lower.match(WORD) ?? [];
  const meaningful = terms.filter((t) => !QUERY_STOP_WORDS.has(t));
  const words = meaningful.length > 0 ? meaningful : terms;
  const phrases = (lower.match(IDENTIFIER) ?? []).map((id) => id.split(/[./-]+/).join(' '));
  return [...new Set([...words, ...phrases, ...measureWords(lower)])].map((t) => `"${t}"`);
}

/**
 * "How long can a path parameter be?" asks for a length or a duration, and reference pages state
 * either in its own noun ("a custom length for parameters", "the maximum amount of time in which a
 * plugin can load"), never with "long"; "how big / how large" asks for a size ("the maximum
 * payload size"). The noun is searched beside the question's words; like a
 * variant it stays out of coverage (queryStems), so a passage without it loses nothing. Measured
 * on bench/answers/quality.js: the `maxParamLength` section went from rank 18 to rank 1 for
 * "How long can a path parameter be by default?", retrieval figures unchanged; "how big can a
 * request body be by default?" now finds the `bodyLimit` section.
 */
const MEASURE_WORDS: ReadonlyArray<readonly [RegExp, readonly string[]]> = [
  [/\bhow\s+long\b/, ['length', 'time']],
  [/\bhow\s+(?:big|large)\b/, ['size']],
];

/** The nouns of what a question measures ({@link MEASURE_WORDS}), none for most questions. */
function measureWords(lower: string): string[] {
  return MEASURE_WORDS.filter(([asks]) => asks.test(lower)).flatMap(([, nouns]) => nouns);
}

/**
 * A word's stem as coverage counts it: the stem of its variant group's first word, else its own,
 * so a passage that says "logger" covers the "log" of "log lines". Whole words are grouped before
 * stemming: "https" is in the group of "tls", "http" (its stem) is not.
 */
function stemOf(word: string): string {
  return porterStem(variantHead(word) ?? word);
}

/**
 * The distinct stems of a question's meaningful words (the ones matchTerms searches for),
 * split and stemmed as the index tokenizer does, for `termCoverage`.
 */
export function queryStems(text: string): string[] {
  const words = (withoutExcluded(withoutClitics(text).toLowerCase()).match(WORD) ?? []).filter(
    (t) => !QUERY_STOP_WORDS.has(t),
  );
  return [...new Set(words.flatMap((w) => tokens(w)).map(stemOf))];
}

/**
 * Share of the query stems found in a passage, in [0, 1]. BM25 lets one frequent term carry a
 * passage; a passage that covers more of the question is the better answer (the coordination
 * factor of classic Lucene scoring). Only words that can stem to a query stem are stemmed.
 */
export function termCoverage(stems: readonly string[], passage: string): number {
  return weightedCoverage(new Map(stems.map((s) => [s, 1])), passage);
}

/**
 * Like {@link termCoverage}, each stem counting with its weight: the weight of the stems found
 * over the weight of all, in [0, 1] (0 without stems or weight).
 */
export function weightedCoverage(weights: ReadonlyMap<string, number>, passage: string): number {
  return coverageOf(weights, stemsFound(weights, passage));
}

/**
 * The stems of `stems` (its keys) that a passage holds, a word of a variant group counting as its
 * group's first word. Only words that can stem to one of them (same first two letters, or
 * grouped) are stemmed; the scan stops once all are found.
 */
export function stemsFound(stems: ReadonlyMap<string, unknown>, passage: string): Set<string> {
  const found = new Set<string>();
  if (stems.size === 0) return found;
  const heads = new Set([...stems.keys()].map((s) => s.slice(0, 2)));
  for (const word of tokens(passage.toLowerCase())) {
    const head = variantHead(word);
    if (head === undefined && !heads.has(word.slice(0, 2))) continue;
    const stem = head === undefined ? porterStem(word) : porterStem(head);
    if (stems.has(stem)) found.add(stem);
    if (found.size === stems.size) break;
  }
  return found;
}

/** The weight of the `found` stems over the weight of all, in [0, 1] (0 without weight). */
export function coverageOf(weights: ReadonlyMap<string, number>, found: ReadonlySet<string>): number {
  let total = 0;
  for (const w of weights.values()) total += w;
  if (weights.size === 0 || total <= 0) return 0;
  if (found.size === weights.size) return 1;
  let covered = 0;
  for (const s of found) covered += weights.get(s) ?? 0;
  return covered / total;
}

/** Letter/digit runs with diacritics removed, like `unicode61 remove_diacritics 2`. */
function tokens(lower: string): string[] {
  return (
    lower
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}
