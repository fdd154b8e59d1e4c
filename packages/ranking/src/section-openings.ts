import { coverageOf, stemsFound } from './query-terms';

/** Fewest sources a search must return before one of them is given to the best section opening. */
export const OPENING_SLOT_FROM = 3;
/** Least share of the question an opening must hold to be given a place (0.4: 0.64, 0.5: 0.62 on dev5). */
export const MIN_OPENING_COVERAGE = 0.3;

const HEADING = /^\s*(?:[-*+]\s+)?#{1,6}\s+(.+?)\s*#*\s*$/;
/** Lines that end a section's opening paragraph: a heading, a code fence, a quote or a table. */
const NOT_PROSE = /^(?:#|```|~~~|>|\|)/;
/**
 * A heading that is a name in code: backticked (`` `bodyLimit` ``), a method (`.hasHeader(key)`,
 * `reply.code(statusCode)`) or a camelCase word (`onRequest`).
 */
const NAME_HEADING =
  /^(?:`[^`]+`|\.?[\p{L}_$][\p{L}\p{N}_$.]*\(.*\)|\.[\p{L}_$][\p{L}\p{N}_$.]*|\p{Ll}+\p{Lu}[\p{L}\p{N}]*)$/u;
/** An HTML anchor line (`<a id="hasHeader"></a>`) between a heading and its text. */
const ANCHOR_LINE = /^<a\s[^>]*>\s*(?:<\/a>)?$/i;

/**
 * The openings of the sections a passage starts: each heading with the paragraph right under it,
 * a camelCase name in the heading also as words (`.hasHeader(key)` → "has Header"). Reference
 * pages open a section on a method or an option with one sentence saying what it is for ("Returns a
 * boolean indicating if the specified header has been set"), in the words a reader asks with; the
 * rest of the section (examples, notes, a later part of a long section) shares their words by chance.
 * A passage cut from the middle of a section opens none.
 */
export function sectionOpenings(content: string): string[] {
  const openings: string[] = [];
  const lines = content.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heading = HEADING.exec(lines[i] ?? '')?.[1];
    if (heading === undefined || !NAME_HEADING.test(heading)) continue;
    const paragraph: string[] = [];
    for (let j = i + 1; j < lines.length; j++) {
      const line = (lines[j] ?? '').trim();
      if (line === '' || ANCHOR_LINE.test(line)) {
        if (paragraph.length > 0) break;
        continue;
      }
      if (NOT_PROSE.test(line)) break;
      paragraph.push(line);
    }
    const words = heading.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2');
    openings.push(`${heading} ${words}\n${paragraph.join(' ')}`);
  }
  return openings;
}

/** The weighted share of the query stems (`shares`) held by a passage's best section opening, 0 without one. */
export function openingCoverage(shares: ReadonlyMap<string, number>, content: string): number {
  let best = 0;
  for (const opening of sectionOpenings(content)) {
    best = Math.max(best, coverageOf(shares, stemsFound(shares, opening)));
    if (best === 1) break;
  }
  return best;
}

/**
 * The first `topK` of `ranked` (best first), one place given to the passage whose section opening
 * fits the question best (its rank × (1 + opening coverage) the highest of the pool) when the
 * ranking leaves it out, in the last place. Both stores' lexical search ends with it.
 *
 * The extractive answer can only quote its sources: for "how do I find out whether a response
 * was already sent?" the pool holds Reply's `.sent` section ("a property to indicate if a response
 * has been sent"), ranked 7th under passages that share more everyday words with the question.
 * Measured on bench/retrieval/questions-dev5.json (the answering section among 5 sources) and
 * bench/answers/quality.js: re-ranking the whole list by the openings' coverage raised the first
 * from 0.56 to 0.68 but moved the passages answers are written from (main key fact 0.77 → 0.68); one
 * place, an opening holding at least {@link MIN_OPENING_COVERAGE} of the question (0 let in Server's
 * `onMaxParamLength` for "paths that match no route", pushing out `setNotFoundHandler`), and
 * none for a definition's search, which leads with the topic's page (SearchQuery.topic): 0.66,
 * answers unchanged.
 */
export function withOpeningSlot<T extends { hit: { content: string }; rank: number }>(
  ranked: readonly T[],
  topK: number,
  shares: ReadonlyMap<string, number>,
): T[] {
  const top = ranked.slice(0, topK);
  // No stems to weigh (a definition's search passes none): no opening can reach the minimum.
  if (topK < OPENING_SLOT_FROM || ranked.length <= topK || shares.size === 0) return top;
  let best = -1;
  let bestScore = 0;
  ranked.forEach((r, i) => {
    const coverage = openingCoverage(shares, r.hit.content);
    const score = r.rank * (1 + coverage);
    if (coverage >= MIN_OPENING_COVERAGE && score > bestScore) [best, bestScore] = [i, score];
  });
  if (best >= topK) top[topK - 1] = ranked[best]!;
  return top;
}
