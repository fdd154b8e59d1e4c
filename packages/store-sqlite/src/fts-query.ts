import { matchTerms } from '@kbqa/ranking';

/**
 * Turns a free-text question into a safe FTS5 MATCH expression: every term quoted (so user
 * input can never be read as FTS syntax), stop words dropped unless nothing else is left,
 * terms OR-ed so BM25 ranks partial matches instead of requiring all words.
 */
export function buildMatchExpression(text: string): string | undefined {
  const terms = matchTerms(text);
  return terms.length > 0 ? terms.join(' OR ') : undefined;
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
