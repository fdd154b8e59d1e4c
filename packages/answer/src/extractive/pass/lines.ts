import { identifiers } from '../../terms.util';
import { previousInBlock } from '../neighbours';
import type { Candidate, Context } from '../types';

/**
 * A how-to answer must say what to use. When its first sentence names nothing in code ("Every
 * time a new route is registered, you can read and modify the route options.") and the sentence
 * before it in its paragraph does ("An alternative approach is to make use of the onRoute hook
 * …"), that one opens the answer: it is what the reader writes.
 */
export function withNamingLead(chosen: Candidate[], { scored }: Context): Candidate[] {
  const first = chosen[0];
  if (!first || first.unit.kind !== 'sentence' || identifiers(first.unit.text).length > 0) return chosen;
  const previous = previousInBlock(first, scored.candidates);
  if (
    !previous ||
    previous.unit.kind !== 'sentence' ||
    chosen.includes(previous) ||
    identifiers(previous.unit.text).length === 0
  )
    return chosen;
  return [previous, ...chosen];
}
