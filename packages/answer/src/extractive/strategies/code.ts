import { containsIdentifier, terms } from '../../terms.util';
import { introOf, followsWithin } from '../neighbours';
import { instructsWithCode } from '../instructions';
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

/**
 * A block that shows what came back (an HTTP response, bare JSON data), not code to write: it
 * does not show the reader what to do.
 */
const TRANSCRIPT = /^[`~]{3,}[^\n]*\n\s*(?:HTTP\/\d|[{[])/;
/** A signature with a placeholder body ("// Some code"): it shows a shape, not what to write. */
const SKELETON = /^\s*(?:\/\/|#)\s*(?:some code|your code|\.\.\.|do something)\s*$/im;

/**
 * A how-to or troubleshooting answer that shows no code and states no step naming code: the
 * code block of the first sources that matches the question best, after the sentences. The
 * call a reader must write (`fs.createReadStream(…)`, an `allowUnsafeRegex` option in a code
 * comment) is often only in an example, sometimes of a page none of the sentences come from.
 * An answer whose best source already says what to write ("Set the `https` option …") keeps
 * to its pages.
 */
export function withExample(chosen: Candidate[], ctx: Context): Candidate[] {
  const { plan, scored, profile } = ctx;
  const { candidates, weights, ids } = scored;
  const shared = (c: Candidate): number =>
    [...weights.keys()].filter((t) => c.termSet.has(t)).length +
    ids.filter((id) => containsIdentifier(c.lower, id)).length;
  const told = (c: Candidate) => c.sourceIndex === 0 && instructsWithCode(c);
  if (chosen.some((c) => c.unit.kind === 'code' || told(c))) return chosen;
  let best: Candidate | undefined;
  for (const c of candidates) {
    if (c.unit.kind !== 'code' || c.sourceIndex >= profile.exampleSources || !c.bodyMatched) continue;
    if (c.unit.text.length > profile.maxCodeChars || c.relevance < profile.exampleRelevance) continue;
    if (TRANSCRIPT.test(c.unit.text) || SKELETON.test(c.unit.text)) continue;
    // One shared word is a coincidence: "console" brought a setup listing to a question about
    // FSTDEP warnings "in my console".
    if (shared(c) < 2) continue;
    if (!best || c.score > best.score) best = c;
  }
  if (!best) return chosen;
  if (plan.type !== 'troubleshooting') return [...chosen, best];
  // The block a problem report matches best is often the code the reader wrote, and the block
  // right after it in its section the fix ("// v4 … req.params.hasOwnProperty(…)", then
  // "// v5 … Object.hasOwn(req.params, …)"; "Bad example!", then the decorated version).
  const fix = candidates.find(
    (c) =>
      c.unit.kind === 'code' &&
      c.sourceIndex === best.sourceIndex &&
      c.unit.heading === best.unit.heading &&
      c.unit.position > best.unit.position &&
      c.unit.position <= best.unit.position + 2 &&
      c.unit.text.length <= profile.maxCodeChars,
  );
  return fix ? [...chosen, best, fix] : [...chosen, best];
}
