import type { TextUnit } from '@kbqa/text';
import { headsTopic, isDefining, namesTopic } from './defining';
import { containsIdentifier, terms } from '../terms.util';
import type { QuestionPlan } from './plan';
import type { ExtractiveProfile } from './profile';
import type { QueryWeights, UnitRecord } from './types';

/**
 * The named features of a unit: those of its score, in the order score.ts combines them, then
 * those the definition strategy ranks by (strategies/definition.ts). Each is a plain
 * number (a share, a count or 0/1) so that a model can be trained on the record; score.ts
 * documents the factor each one feeds and its neutral value.
 */
export const FEATURE_NAMES = [
  'termCoverage',
  'phrase',
  'tiny',
  'short',
  'long',
  'boilerplate',
  'endsInColon',
  'fragment',
  'singleTerm',
  'sectionOrdinal',
  'sourceScore',
  'sourceRank',
  'headingFit',
  'statesDefault',
  'statesAmount',
  'namesExcluded',
  'ownPage',
  'qualifiedPage',
  'topicHeading',
  'namesTopic',
  'definesTopic',
] as const;

export type FeatureName = (typeof FEATURE_NAMES)[number];

/**
 * A unit's features:
 * - termCoverage: share of the question's weight its text holds, a term only its heading or page
 *   title has at a share (profile.headingTermShare), a reader's word the page words differently
 *   at a share (profile.relatedShare), names in code form at their weight (0-1);
 * - phrase: share of the question's adjacent term pairs it has in the same order (0-1);
 * - tiny, short, long, boilerplate, endsInColon, fragment (0/1): how it reads on its own (a
 *   sentence of fewer than 4 words with no code or figure, fewer than 7 otherwise, over 350
 *   characters, "see here" / "for example:", ending in ":", cut by a chunk boundary); 0 for code;
 * - singleTerm (0/1): it shares one term only of a question asking three or more;
 * - sectionOrdinal: its place among its section's sentences, from 1 (0 for a code block);
 * - sourceScore: the retriever's score of its source (0-1); sourceRank: 1 for the first source,
 *   down towards 0 for the last;
 * - headingFit: share of the question's weight its heading holds (0-1; 0 without a heading);
 * - statesDefault (0/1): a "Default: …" line under a heading that fits, for a question asking a default;
 * - statesAmount (0/1): a sentence stating an amount, for a question asking how long, many …;
 * - namesExcluded (0/1): it names what the question excludes ("without X") and weighs no alternative;
 * and, for a definition or option question's sentences (else 0):
 * - ownPage (0/1): its page's title or path is the topic alone; qualifiedPage (0/1): they name
 *   the topic among other words ("Microservices widgets" for "widget");
 * - topicHeading (0/1): its heading is the topic, names it in code form or spells its acronym;
 * - namesTopic (0/1): its text names the topic (a name in code form, or all of its terms);
 * - definesTopic (0/1): it names the topic in a defining form ("X is …", "`x` - …").
 */
export type UnitFeatures = Record<FeatureName, number>;

/** A unit's features and how it matches the question. */
export interface UnitDescription {
  features: UnitFeatures;
  /** Whether its own text (not only its heading) has one of the question's terms or names. */
  bodyMatched: boolean;
  /** Whether it has one of the question's own words, not only the conversation's topic. */
  ownMatched: boolean;
}

const BOILERPLATE =
  /^(?:see|check|refer to|read more|for more (?:info|information|details)|click|the following|as follows|for example[:,]?$|example:?$|note:?$)|\b(?:see|check) (?:here|below|above|the docs?)\b/i;
/** A sentence that states an amount: a figure, or a number word with a unit ("six months"). */
const STATES_AMOUNT =
  /\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|hundred|thousand|million)\s+(?:ms|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|months?|years?|bytes?|characters?|requests?|times)\b/i;
/** A sentence weighing an alternative: "over HTTPS (h2) or plaintext (h2c)", "not needed without TLS". */
const ALTERNATIVE = /\b(?:or|without|not|no|unless|instead|otherwise)\b/i;

/**
 * What a reader says happened and the word pages use for it: "my hook throws" is "If a hook
 * function causes an error, it is logged and ignored". Not the same thing (a page about errors is
 * not about throwing), so a sentence with the page's word gets a share of the reader's word's
 * weight (profile.relatedShare), and only in scoring sentences, not in judging coverage. Stems.
 */
const RELATED = new Map<string, string[]>([
  ['throw', ['error', 'exception']],
  ['thrown', ['error', 'exception']],
  ['crash', ['error', 'exception']],
  ['exception', ['error']],
]);

/** How a unit reads on its own: the quality features, all 0 for a code block. */
function readability(unit: TextUnit, profile: ExtractiveProfile): Pick<UnitFeatures, QualityFeature> {
  if (unit.kind === 'code')
    return { tiny: 0, short: 0, long: 0, boilerplate: 0, endsInColon: 0, fragment: 0 };
  const words = unit.text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
  // "Default: `1048576`" is short but says something; "Usage" does not.
  const tiny = words < profile.tinyWords && !/`|\d/.test(unit.text);
  return {
    tiny: Number(tiny),
    short: Number(!tiny && words < profile.shortWords),
    long: Number(unit.text.length > profile.longChars),
    boilerplate: Number(BOILERPLATE.test(unit.text)),
    endsInColon: Number(unit.text.endsWith(':')),
    // A piece cut by a chunk boundary ("request](./Request.md) object, …") does not read alone.
    fragment: Number(/^[a-z]/.test(unit.text) || unit.text.includes('](')),
  };
}

export type QualityFeature = 'tiny' | 'short' | 'long' | 'boilerplate' | 'endsInColon' | 'fragment';

/** Share of the question's weight that a heading (a unit's, else its page title) names. */
export function headingFit(weights: QueryWeights, heading: string): number {
  const headingTerms = new Set(terms(heading));
  const lower = heading.toLowerCase();
  let fit = 0;
  for (const [t, w] of weights.weights) if (headingTerms.has(t)) fit += w;
  for (const id of weights.ids) if (containsIdentifier(lower, id)) fit += weights.idWeight;
  return fit / weights.total;
}

function countPhrases(sequence: string[], bigrams: Array<[string, string]>): number {
  const present = new Set<string>();
  for (let i = 0; i + 1 < sequence.length; i++) present.add(`${sequence[i]} ${sequence[i + 1]}`);
  return bigrams.filter(([a, b]) => present.has(`${a} ${b}`)).length;
}

/** What is read once per section or source for {@link describeUnit}. */
export interface UnitPlace {
  /** How many sources there are. */
  sources: number;
  /** The unit's {@link headingFit}, 0 without a heading. */
  fit: number;
  /** How its page names a definition's topic (pageNaming of defining.ts); undefined without a topic. */
  page: { own: boolean; qualified: boolean } | undefined;
}

export type TopicFeature = 'ownPage' | 'qualifiedPage' | 'topicHeading' | 'namesTopic' | 'definesTopic';

/** The topic features of a definition or option question's sentence; all 0 otherwise. */
function topicFeatures(
  c: UnitRecord,
  plan: QuestionPlan,
  page: UnitPlace['page'],
): Pick<UnitFeatures, TopicFeature> {
  if (!page || c.unit.kind !== 'sentence')
    return { ownPage: 0, qualifiedPage: 0, topicHeading: 0, namesTopic: 0, definesTopic: 0 };
  const { topicTerms, topicIds } = plan;
  const names = namesTopic(c, topicTerms, topicIds);
  return {
    ownPage: Number(page.own),
    qualifiedPage: Number(page.qualified),
    topicHeading: Number(headsTopic(c.unit.heading, topicTerms, topicIds)),
    namesTopic: Number(names),
    definesTopic: Number(names && isDefining(c.unit.text, topicTerms, topicIds)),
  };
}

/**
 * The features of one unit for a question: a function of the unit, the plan, the question's
 * weights and its place (read once per section or source by the caller) only.
 */
export function describeUnit(
  c: UnitRecord,
  plan: QuestionPlan,
  weights: QueryWeights,
  place: UnitPlace,
  profile: ExtractiveProfile,
): UnitDescription {
  const { sources, fit } = place;
  let heading = 0;
  let body = 0;
  let distinct = 0;
  for (const [t, w] of weights.weights) {
    if (c.termSet.has(t)) {
      body += w;
      distinct++;
    } else if (c.headingTerms.has(t)) heading += profile.headingTermShare * w;
    else if (plan.terms.includes(t) && RELATED.get(t)?.some((r) => c.termSet.has(r))) {
      body += profile.relatedShare * w;
      distinct++;
    }
  }
  for (const id of weights.ids) {
    if (containsIdentifier(c.lower, id)) {
      body += weights.idWeight;
      distinct++;
    }
  }
  const { bigrams } = plan;
  const sentence = c.unit.kind === 'sentence';
  const features: UnitFeatures = {
    termCoverage: (heading + body) / weights.total,
    phrase: bigrams.length === 0 ? 0 : countPhrases(c.terms, bigrams) / bigrams.length,
    ...readability(c.unit, profile),
    singleTerm: Number(plan.terms.length + plan.ids.length >= profile.singleTermMinAsked && distinct === 1),
    // Sections open with what they are about; later sentences are details.
    sectionOrdinal: sentence ? 1 + c.sectionIndex : 0,
    sourceScore: Math.min(1, Math.max(0, c.source.score)),
    sourceRank: 1 - c.sourceIndex / Math.max(1, sources),
    // A section headed by what was asked (an option's name) is where its answer is.
    headingFit: fit,
    // "Default: `72000`" under the option's heading answers "what is the default …?".
    statesDefault: Number(
      plan.asksDefault && /^default\b/i.test(c.unit.text) && fit >= profile.defaultLineMinFit,
    ),
    // "How long is a major release supported?" is answered by "… for six months …", not by a
    // sentence sharing more of its words ("The release date … can be found at …").
    statesAmount: Number(plan.asksAmount && sentence && STATES_AMOUNT.test(c.unit.text)),
    // Naming what the question excludes ("without listening": a sentence on `fastify.listen()`),
    // a unit may still be the best there is, but any other comes first.
    namesExcluded: Number([...plan.excluded].some((t) => c.termSet.has(t)) && !ALTERNATIVE.test(c.unit.text)),

    ...topicFeatures(c, plan, place.page),
  };
  return {
    features,
    bodyMatched: body > 0,
    ownMatched:
      plan.terms.some((t) => c.termSet.has(t)) || plan.ids.some((id) => containsIdentifier(c.lower, id)),
  };
}
