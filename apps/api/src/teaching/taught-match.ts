import { contentTerms, termOverlap } from '@kbqa/answer';

/**
 * Least content-word overlap (termOverlap of @kbqa/answer) between a question and a taught
 * question for the taught answer to be used first. 0.6 takes "how can I reset my password" for
 * "How do I reset my password?" (1.0) and "reset a forgotten password" (0.67), not "reset the
 * password of admin accounts" (0.5) nor a bare "password" (0.5).
 */
export const TAUGHT_MATCH_MIN = 0.6;

/** A taught pair as the matcher sees it. */
export interface TaughtCandidate {
  id: number;
  question: string;
}

/**
 * The taught pair whose question is closest to `question` when it is close enough: the highest
 * overlap at or above `min`, the newest on a tie (a pair taught again later wins).
 */
export function bestTaughtMatch<T extends TaughtCandidate>(
  question: string,
  candidates: readonly T[],
  min = TAUGHT_MATCH_MIN,
): { pair: T; similarity: number } | undefined {
  const asked = contentTerms(question);
  if (asked.size === 0) return undefined;
  let best: { pair: T; similarity: number } | undefined;
  for (const pair of candidates) {
    const similarity = termOverlap(asked, contentTerms(pair.question));
    if (similarity < min) continue;
    if (!best || similarity > best.similarity || (similarity === best.similarity && pair.id > best.pair.id)) {
      best = { pair, similarity };
    }
  }
  return best;
}
