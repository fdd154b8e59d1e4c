import { definitionOf } from '../neighbours';
import { neutralize } from '../score';
import { arrange, fill, usable } from '../select';
import type { Candidate, Context } from '../types';

interface Ranked {
  c: Candidate;
  score: number;
  /** It defines the topic or opens the topic's own page. */
  defining: boolean;
  /** It defines the topic ("X is …", its own entry). */
  defines: boolean;
}

/**
 * Definition and option questions: the topic's own page and section over pages where the topic
 * only qualifies something else ("microservices X"), and a defining sentence first.
 */
export function define(ctx: Context): Candidate[] | undefined {
  const { plan, scored, profile, featuresOff } = ctx;
  const { topicIds } = plan;
  if (plan.topicTerms.size === 0 && topicIds.length === 0) return undefined;
  const ranked: Ranked[] = [];
  // A member's own entry or section ("`signal` - An `AbortSignal` that …" for request.signal,
  // "#### after" for fastify.after()), which names it without its receiver, if at all.
  const entries = new Set(
    topicIds.filter((id) => id.includes('.')).map((id) => definitionOf(scored.candidates, id)),
  );
  for (const c of scored.candidates) {
    if (c.unit.kind !== 'sentence') continue;
    const f = neutralize(c.features, featuresOff);
    const entry = entries.has(c);
    const page = f.ownPage ? profile.ownPageFit : f.qualifiedPage ? profile.qualifierPageFit : 1;
    const ownSection = entry || f.topicHeading > 0;
    const names = entry || f.namesTopic > 0;
    // An option's description often omits its name: the heading names it.
    if (!names && !(ownSection && c.sectionIndex < 2)) continue;
    const defines =
      entry ||
      (names && f.definesTopic > 0) ||
      (plan.type === 'option' && ownSection && c.sectionIndex === 0);
    // The first sentence under the topic's own heading on the topic's own page opens it, in
    // whatever form ("Acme can be extended with plugins, which …"), though a sentence of the
    // form "X is …" there still comes first.
    const opens = !defines && names && page > 1 && ownSection && c.sectionIndex === 0;
    const defining = defines || opens;
    const base = Math.max(c.score, profile.minRelevance * c.quality);
    const score =
      base *
      page *
      (ownSection ? profile.ownSectionFactor : 1) *
      (defines ? profile.definingFactor : opens ? profile.pageOpeningFactor : 1);
    ranked.push({ c, score, defining, defines });
  }
  // A definition opens with a sentence that defines or opens the topic's page whenever there is
  // one, however many of the question's other words a sentence about it has ("… supported by
  // the LTS policy …" for "What does the LTS policy promise?"). An option's name under its own
  // heading is weaker evidence, so there the factors above decide.
  const definingFirst = plan.type === 'definition';
  // A member's own entry leads whatever the question's other words match.
  ranked.sort(
    (a, b) =>
      Number(entries.has(b.c)) - Number(entries.has(a.c)) ||
      (definingFirst ? Number(b.defining) - Number(a.defining) : 0) ||
      b.score - a.score,
  );
  let lead = ranked[0];
  if (!lead) return undefined;
  // Two defining sentences of one section ("The second parameter … is `Reply`. Reply is a core
  // object that …"): the section opens with the first, and the second reads as its sequel.
  if (lead.defining) {
    const first = lead;
    const earlier = ranked.find(
      (r) =>
        r.defines &&
        r.c.sourceIndex === first.c.sourceIndex &&
        r.c.unit.heading === first.c.unit.heading &&
        r.c.unit.position < first.c.unit.position &&
        r.c.unit.position >= first.c.unit.position - 2,
    );
    if (earlier) lead = earlier;
  }
  // The lead, then what follows it in its paragraph and section, which explains it further.
  const chosen: Candidate[] = [lead.c];
  const after = scored.candidates.filter(
    (c) =>
      c.unit.kind === 'sentence' &&
      c.sourceIndex === lead.c.sourceIndex &&
      c.unit.heading === lead.c.unit.heading &&
      c.unit.position > lead.c.unit.position &&
      c.unit.position <= lead.c.unit.position + 3 &&
      c.quality >= profile.followQuality,
  );
  fill(chosen, after.slice(0, 2), 0, profile);
  const others = scored.candidates.filter((c) => usable(c, profile)).sort((a, b) => b.score - a.score);
  const top = others[0];
  if (top) fill(chosen, others, top.score * profile.defineFloorShare, profile);
  return arrange(chosen, undefined, lead.c);
}
