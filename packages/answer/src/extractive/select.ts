import type { ExtractiveProfile } from './profile';
import type { Candidate } from './types';

/** Whether a sentence may be quoted at all: its text matches and it covers enough of the question. */
export function usable(c: Candidate, profile: ExtractiveProfile): boolean {
  return c.unit.kind === 'sentence' && c.bodyMatched && c.relevance >= profile.minRelevance;
}

function nearDuplicate(a: Candidate, b: Candidate): boolean {
  if (a.lower === b.lower) return true;
  if (a.termSet.size === 0 || b.termSet.size === 0) return false;
  let shared = 0;
  for (const t of a.termSet) if (b.termSet.has(t)) shared++;
  return shared / (a.termSet.size + b.termSet.size - shared) >= 0.8;
}

/**
 * Adds to `chosen` (in place) sentences by score, without near duplicates, within the sentence
 * and character budgets, stopping at the first below `floor`.
 */
export function fill(
  chosen: Candidate[],
  ranked: Candidate[],
  floor: number,
  profile: ExtractiveProfile,
): Candidate[] {
  let chars = chosen.reduce((n, c) => n + c.unit.text.length, 0);
  for (const candidate of ranked) {
    if (chosen.length >= profile.maxSentences || candidate.score < floor) break;
    if (chosen.includes(candidate)) continue;
    if (chosen.length > 0 && chars + candidate.unit.text.length > profile.maxChars) continue;
    if (chosen.some((c) => nearDuplicate(c, candidate))) continue;
    chosen.push(candidate);
    chars += candidate.unit.text.length;
  }
  return chosen;
}

/** Whether `sentence` comes right before `code` in its source. */
export function follows(sentence: Candidate, code: Candidate): boolean {
  return sentence.sourceIndex === code.sourceIndex && sentence.unit.position === code.unit.position - 1;
}

/**
 * Answer order: the lead first (when given) with the rest of its source after it, then the other
 * sources by their best sentence; document order inside a source. A code block goes right after
 * the sentence introducing it, else after its source's sentences.
 */
export function arrange(
  chosen: Candidate[],
  code: Candidate | undefined,
  lead: Candidate | undefined,
): Candidate[] {
  const groupRank = new Map<number, number>();
  chosen.forEach((c, i) => {
    if (!groupRank.has(c.sourceIndex)) groupRank.set(c.sourceIndex, i);
  });
  if (lead) groupRank.set(lead.sourceIndex, -1);
  const out = [...chosen];
  if (code) {
    if (!groupRank.has(code.sourceIndex)) groupRank.set(code.sourceIndex, chosen.length);
    out.push(code);
  }
  const order = (c: Candidate): number => {
    if (c === lead) return -1;
    if (c === code && !chosen.some((s) => follows(s, c))) return Number.MAX_SAFE_INTEGER;
    return c.unit.position;
  };
  const rank = (c: Candidate): number => groupRank.get(c.sourceIndex) ?? 0;
  return out.sort((a, b) => rank(a) - rank(b) || order(a) - order(b));
}
