import type { LexicalScore } from './relevance';

/**
 * Hybrid score = LEXICAL_WEIGHT · lexical relevance + (1 − LEXICAL_WEIGHT) · dense relevance, a
 * fixed convex combination of two absolute scores in [0, 1] (lexicalRelevance: question coverage
 * and BM25; cosine similarity clamped to [0, 1]). Unlike rank fusion (RRF), the same chunk and
 * question always get the same score whatever else is in the index, so a score threshold keeps its
 * meaning across queries; a chunk matching both ways outranks one matching only one way.
 */
export const LEXICAL_WEIGHT = 0.5;
/** Candidates taken from each side, per wanted result, before fusion. */
const POOL_FACTOR = 2;
const MIN_POOL = 20;

/** Candidates a hybrid search of `topK` results takes from each side before fusion. */
export function hybridPool(topK: number): number {
  return Math.max(MIN_POOL, topK * POOL_FACTOR);
}

/**
 * Hybrid order and scores of the candidates `ids` from their lexical scores and vector
 * similarities (a missing one counts as 0): ranked by BM25's curve plus similarity (see
 * rankRelevance), reported with the calibrated lexical score plus similarity, capped by the scores
 * above it so that they never rise down the list.
 */
export function fuseScores(
  ids: Iterable<number>,
  lexical: ReadonlyMap<number, LexicalScore>,
  dense: ReadonlyMap<number, number>,
  topK: number,
): Array<{ chunkId: number; rank: number; score: number }> {
  const fuse = (lex: number, chunkId: number) =>
    LEXICAL_WEIGHT * lex + (1 - LEXICAL_WEIGHT) * (dense.get(chunkId) ?? 0);
  const fused = [...ids]
    .map((chunkId) => ({
      chunkId,
      rank: fuse(lexical.get(chunkId)?.rankRelevance ?? 0, chunkId),
      score: fuse(lexical.get(chunkId)?.score ?? 0, chunkId),
    }))
    .sort((a, b) => b.rank - a.rank || a.chunkId - b.chunkId)
    .slice(0, topK);
  let cap = 1;
  for (const f of fused) {
    cap = Math.min(cap, f.score);
    f.score = cap;
  }
  return fused;
}
