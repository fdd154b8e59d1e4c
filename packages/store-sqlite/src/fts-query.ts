/** Words too common in questions to help ranking. */
const STOP_WORDS = new Set(
  (
    'a an and are as at be but by can could do does did for from how i if in into is it its me my ' +
    'of on or our should so that the their them then there these this those to was we what when ' +
    'where which who why will with would you your use using used about any some there here'
  ).split(' '),
);

/**
 * Turns a free-text question into a safe FTS5 MATCH expression: every term quoted (so user
 * input can never be read as FTS syntax), stop words dropped unless nothing else is left,
 * terms OR-ed so BM25 ranks partial matches instead of requiring all words.
 */
export function buildMatchExpression(text: string): string | undefined {
  const terms = matchTerms(text);
  return terms.length > 0 ? terms.join(' OR ') : undefined;
}

/** The quoted FTS5 terms of a question, stop words dropped unless nothing else is left. */
export function matchTerms(text: string): string[] {
  const terms = (text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).filter((t) => t.length > 0);
  const meaningful = terms.filter((t) => !STOP_WORDS.has(t));
  return [...new Set(meaningful.length > 0 ? meaningful : terms)].map((t) => `"${t}"`);
}

/**
 * On a large index, OR-ing common terms makes FTS5 score most rows. Terms whose document
 * frequency is at least `commonAt` contribute little to BM25 but cost the most, so the candidate
 * set is restricted to rows holding a rarer term, while every term still counts in the score:
 * `(rare1 OR rare2) AND (all terms OR-ed)`. With no rare term, the rarest one is required.
 */
export function prunedMatchExpression(
  terms: string[],
  documentFrequency: (term: string) => number,
  commonAt: number,
): string {
  const dfs = terms.map((t) => ({ t, n: documentFrequency(t) })).sort((a, b) => a.n - b.n);
  const rare = dfs.filter((d) => d.n < commonAt).map((d) => d.t);
  const required = rare.length > 0 ? rare : dfs.slice(0, 1).map((d) => d.t);
  if (required.length === terms.length) return terms.join(' OR ');
  return `(${required.join(' OR ')}) AND (${terms.join(' OR ')})`;
}
