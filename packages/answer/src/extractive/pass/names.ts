import type { Candidate } from '../types';

/**
 * A follow-up is searched and scored with the conversation's topic, so the best sentence may say
 * only what the previous answer said ("Register `@fastify/cors` …" for "and how do I restrict it
 * to one origin?"). The answer opens with the first source whose sentences have the follow-up's
 * own words; the others keep their order after it.
 */
export function ownWordsFirst(chosen: Candidate[]): Candidate[] {
  const first = chosen.find((c) => c.unit.kind === 'sentence');
  if (!first || first.ownMatched) return chosen;
  const own = chosen.find((c) => c.unit.kind === 'sentence' && c.ownMatched);
  if (!own) return chosen;
  const group = chosen.filter((c) => c.sourceIndex === own.sourceIndex);
  return [...group, ...chosen.filter((c) => c.sourceIndex !== own.sourceIndex)];
}

/** A list entry that opens with its name: "`query` - The parsed querystring", "`ip`: The IP address". */
export const NAMED_ENTRY = /^`([^`\n]{1,60})`\s*(?:[-\u2013\u2014:]|$)/;
