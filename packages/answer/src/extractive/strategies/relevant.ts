import { introOf, sectionOpening } from '../neighbours';
import { arrange, fill, follows, usable } from '../select';
import type { Candidate, Context } from '../types';
import { aroundCode, pickCode } from './code';

/** The general rule: best sentences, grouped by source (best source first), in document order. */
export function relevant(ctx: Context): Candidate[] {
  const { plan, scored, profile } = ctx;
  const ranked = scored.candidates.filter((c) => usable(c, profile)).sort((a, b) => b.score - a.score);
  const best = ranked[0];
  // A code block that matches the question better than any sentence ("async function
  // (instance, opts, done)" for "my async plugin that calls done() broke") is what the reader
  // has written; the opening of its section says what is wrong with it, in words the question
  // does not use.
  const topCode = scored.candidates
    .filter((c) => c.unit.kind === 'code' && c.bodyMatched && c.relevance >= profile.minRelevance)
    .sort((a, b) => b.score - a.score)[0];
  if (!best) return topCode ? aroundCode(topCode, ctx) : [];
  const opening =
    topCode && topCode.score > best.score ? sectionOpening(topCode, scored.candidates, profile) : undefined;
  const chosen = fill(opening ? [opening] : [], ranked, best.score * profile.relevantFloorShare, profile);
  const code = plan.asksHow ? pickCode(chosen, ctx) : undefined;
  // A code block shown for its neighbours comes with the sentence that introduces it ("To
  // listen on all interfaces, … like so:"), which says what the code does.
  const intro = code && !chosen.some((s) => follows(s, code)) ? introOf(code, scored.candidates) : undefined;
  if (intro) chosen.push(intro);
  return arrange(chosen, code, undefined);
}
