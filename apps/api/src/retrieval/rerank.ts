import { embeddingText, KbqaError, type Reranker, type SearchHit } from '@kbqa/core';

export interface RerankSettings {
  reranker: Reranker;
  /** Candidates the cross-encoder reads (KBQA_RERANK_TOP). */
  top: number;
  /** Past this, the fused order stands (KBQA_RERANK_BUDGET_MS). */
  budgetMs: number;
}

export type RerankOutcome = 'reranked' | 'over-budget' | 'failed' | 'skipped';

/**
 * Reorders the first `top` hits by cross-encoder score. The hits keep the scores of the
 * positions they land in (the fused scores of the first `top`, still descending), so scores keep
 * their calibrated meaning (relevance threshold, answer floor) and only the order changes.
 * Over budget or on a failure the fused order is returned unchanged: reranking may only help.
 */
export async function rerankHits(
  question: string,
  hits: SearchHit[],
  settings: RerankSettings,
): Promise<{ hits: SearchHit[]; outcome: RerankOutcome; reason?: string }> {
  const head = hits.slice(0, settings.top);
  if (head.length < 2) return { hits, outcome: 'skipped' };
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<'over-budget'>((resolve) => {
    timer = setTimeout(() => resolve('over-budget'), settings.budgetMs);
  });
  try {
    const scores = await Promise.race([
      settings.reranker.rerank(
        question,
        head.map((h) => embeddingText(h)),
        { deadline: Date.now() + settings.budgetMs },
      ),
      budget,
    ]);
    if (scores === 'over-budget') return { hits, outcome: 'over-budget' };
    if (scores.length !== head.length) return { hits, outcome: 'failed', reason: 'wrong number of scores' };
    const order = head
      .map((hit, i) => ({ hit, i, score: scores[i] ?? -Infinity }))
      .sort((a, b) => b.score - a.score || a.i - b.i);
    const reranked = order.map(({ hit }, position) => ({ ...hit, score: head[position]!.score }));
    return { hits: [...reranked, ...hits.slice(head.length)], outcome: 'reranked' };
  } catch (error) {
    return { hits, outcome: 'failed', reason: KbqaError.from(error).message };
  } finally {
    clearTimeout(timer);
  }
}
