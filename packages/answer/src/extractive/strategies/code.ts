import { terms } from '../../terms.util';
import { introOf, followsWithin } from '../neighbours';
import { arrange, follows } from '../select';
import type { Candidate, Context } from '../types';

/** The units under one heading of one source, how well the heading fits, and what they cover. */
export interface Section {
  fit: number;
  /** The best score of its sentences (0 without any). */
  best: number;
  units: Candidate[];
  /** The question's terms and names its units and heading hold. */
  covered: Set<string>;
}

/**
 * A how-to whose matching section is a heading over a code block and nothing else ("### Run
 * the test against different Node.js versions" over `npx -p node@10 -- npm run benchmark`): the
 * heading, as the step it names, and the block. Of several such headings, the one with the
 * fewest words the question does not ask for ("… in different branches against …") wins.
 */
export function codeSection(
  sections: Iterable<Section>,
  ctx: Context,
  asked: number,
): Candidate[] | undefined {
  const { scored, profile } = ctx;
  let pick: { code: Candidate; rank: number } | undefined;
  for (const section of sections) {
    if (section.fit < profile.howToSectionFit || section.best > 0 || section.covered.size * 2 < asked)
      continue;
    if (section.units.some((c) => c.unit.kind === 'sentence')) continue;
    const code = section.units.find(
      (c) => c.unit.kind === 'code' && c.unit.text.length <= profile.maxCodeChars,
    );
    if (!code || !code.unit.heading) continue;
    const headingTerms = new Set(terms(code.unit.heading));
    const extra = [...headingTerms].filter((t) => !scored.weights.has(t)).length;
    const rank =
      section.fit -
      profile.codeSectionExtraWord * extra -
      profile.codeSectionSourcePenalty * code.sourceIndex;
    if (!pick || rank > pick.rank) pick = { code, rank };
  }
  if (!pick) return undefined;
  const { code } = pick;
  const heading = code.unit.heading.replace(/[^\p{L}\p{N})`'"\]]+$/u, '');
  const step: Candidate = {
    ...code,
    unit: { ...code.unit, kind: 'sentence', text: `${heading}:`, position: code.unit.position - 1 },
  };
  return [step, code];
}

/**
 * No sentence is about the question, but a code block is: what the reader ran ("import Fastify
 * from 'fastify'" for "node says 'Cannot use import statement outside a module' …"). The
 * answer is the block with the sentence introducing it and the one after it, which says what
 * the block needs ("If you are using ECMAScript Modules …, be sure to include "type":
 * "module" …"). A block matching less than profile.exampleRelevance answers nothing.
 */
export function aroundCode(code: Candidate, ctx: Context): Candidate[] {
  const { scored, profile } = ctx;
  if (code.relevance < profile.exampleRelevance || code.unit.text.length > profile.maxCodeChars) return [];
  const intro = introOf(code, scored.candidates);
  const after = scored.candidates.find((c) => followsWithin(code, c, 1) && c.quality >= profile.stepQuality);
  const sentences = [intro, after].filter((c): c is Candidate => c !== undefined);
  return sentences.length > 0 ? arrange(sentences, code, undefined) : [];
}

/** The code block that shows what the chosen sentences describe, from one of their pages. */
export function pickCode(chosen: Candidate[], ctx: Context): Candidate | undefined {
  const { scored, profile } = ctx;
  let pick: Candidate | undefined;
  let pickScore = 0;
  for (const c of scored.candidates) {
    if (c.unit.kind !== 'code' || c.unit.text.length > profile.maxCodeChars || !c.bodyMatched) continue;
    // An example from a page none of the chosen sentences come from illustrates something else.
    if (!chosen.some((s) => s.sourceIndex === c.sourceIndex)) continue;
    // Code right after a chosen sentence is usually the example that sentence introduces; code
    // among the chosen sentences of its passage shows what they describe, in code's own words.
    const introduced = chosen.some((s) => follows(s, c));
    const near = chosen.some(
      (s) => s.sourceIndex === c.sourceIndex && Math.abs(s.unit.position - c.unit.position) <= 2,
    );
    const floor = introduced || near ? profile.minRelevance / 2 : profile.minRelevance;
    if (c.relevance < floor) continue;
    const score = c.score + (introduced ? profile.introducedCodeBonus : 0);
    if (score > pickScore) {
      pick = c;
      pickScore = score;
    }
  }
  return pick;
}
