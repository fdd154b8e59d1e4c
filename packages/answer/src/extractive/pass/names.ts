import { definitionOf } from '../neighbours';
import type { Candidate, Context } from '../types';

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

/**
 * A question that names an option, method or flag (`bodyLimit`, `reply.hijack()`, `--inspect`)
 * asks about that thing whatever its type ("how do I use `reply.hijack()`?"), and the reader must
 * see what it is: the sentence defining the first such name that the sources define. A how-to
 * opens with it (`at` 0; moved to the front if chosen elsewhere); a problem report ("request.ips
 * is always undefined") keeps its cause first and, unless already chosen, follows it with the
 * definition (`at` 1), whose condition ("`ips` - … (only when `trustProxy` is enabled)") is often
 * the answer.
 */
export function withNamedDefinition(chosen: Candidate[], { scored }: Context, at: 0 | 1): Candidate[] {
  for (const id of scored.ids) {
    const def = definitionOf(scored.candidates, id);
    if (!def) continue;
    if (at === 0 ? chosen[0] === def : chosen.includes(def)) return chosen;
    const rest = chosen.filter((c) => c !== def);
    return [...rest.slice(0, at), def, ...rest.slice(at)];
  }
  return chosen;
}

/** A list entry that opens with its name: "`query` - The parsed querystring", "`ip`: The IP address". */
export const NAMED_ENTRY = /^`([^`\n]{1,60})`\s*(?:[-\u2013\u2014:]|$)/;

/**
 * "Request is a core object containing the following fields:" says what the thing holds only
 * through the list after it, which the answer's budget cuts after an entry or two. A chosen
 * sentence ending in ":" followed by named entries ("`query` - …", "`body` - …") carries their
 * names ("…the following fields: `query`, `body`, `params`, …"): the reader sees the whole list
 * at the cost of one line.
 */
export function withListNames(chosen: Candidate[], { scored, profile }: Context): Candidate[] {
  return chosen.map((c) => {
    if (c.unit.kind !== 'sentence' || !c.unit.text.endsWith(':')) return c;
    const names: string[] = [];
    let lastBlock = c.unit.block;
    let more = false;
    for (const next of scored.candidates) {
      if (next.sourceIndex !== c.sourceIndex || next.unit.position <= c.unit.position) continue;
      if (next.unit.kind !== 'sentence' || next.unit.heading !== c.unit.heading) break;
      const name = NAMED_ENTRY.exec(next.unit.text)?.[1];
      // A further sentence of the same entry ("Values are percent-decoded …") continues it.
      if (!name) {
        if (next.unit.block === lastBlock && names.length > 0) continue;
        break;
      }
      if (names.length >= profile.maxListNames) {
        more = true;
        break;
      }
      names.push(`\`${name}\``);
      lastBlock = next.unit.block;
    }
    if (names.length < 2) return c;
    const text = `${c.unit.text} ${names.join(', ')}${more ? ', …' : ''}`;
    return { ...c, unit: { ...c.unit, text } };
  });
}
