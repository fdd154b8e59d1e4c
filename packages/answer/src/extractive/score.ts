import type { AnswerSource } from '@kbqa/core';
import { pageNaming } from './defining';
import { describeUnit, FEATURE_NAMES, headingFit, type FeatureName, type UnitFeatures } from './features';
import type { QuestionPlan } from './plan';
import type { ExtractiveProfile } from './profile';
import type { Candidate, Scored } from './types';
import { readSources } from './units';
import { learnedLogScore, relativeScores, type UnitScorer } from './unit-scorer';
import { weigh } from './weights';

/**
 * The value a switched-off feature takes: the one that leaves the score as if the rule it feeds
 * did not exist (a coverage of 1 leaves only the other factors; 0 removes a penalty or a bonus).
 */
export const NEUTRAL_FEATURES: Readonly<UnitFeatures> = Object.freeze({
  termCoverage: 1,
  phrase: 0,
  tiny: 0,
  short: 0,
  long: 0,
  boilerplate: 0,
  endsInColon: 0,
  fragment: 0,
  singleTerm: 0,
  sectionOrdinal: 0,
  sourceScore: 0,
  sourceRank: 0,
  headingFit: 0,
  statesDefault: 0,
  statesAmount: 0,
  namesExcluded: 0,
  ownPage: 0,
  qualifiedPage: 0,
  topicHeading: 0,
  namesTopic: 0,
  definesTopic: 0,
});

/** Share of the question's weighted terms and names a unit holds, a phrase match adding to it (0-1). */
export function relevanceOf(f: UnitFeatures, p: ExtractiveProfile): number {
  return Math.min(1, f.termCoverage * (1 + p.phraseBonus * f.phrase));
}

/** Penalties for sentences that read badly on their own: very short, boilerplate, run-on (0-1). */
export function qualityOf(f: UnitFeatures, p: ExtractiveProfile): number {
  let q = 1;
  if (f.tiny) q *= p.tinyFactor;
  else if (f.short) q *= p.shortFactor;
  if (f.long) q *= p.longFactor;
  if (f.boilerplate) q *= p.boilerplateFactor;
  if (f.endsInColon) q *= p.endsInColonFactor;
  if (f.fragment) q *= p.fragmentFactor;
  return q;
}

/** The score the strategies pick from: the product of one factor per feature (or pair of them). */
export function combine(f: UnitFeatures, p: ExtractiveProfile): number {
  return (
    relevanceOf(f, p) *
    qualityOf(f, p) *
    (f.singleTerm ? p.singleTermFactor : 1) *
    (f.sectionOrdinal > 0 ? 1 + p.sectionLeadBonus / f.sectionOrdinal : 1) *
    (1 + p.sourceScoreBonus * f.sourceScore + p.sourceRankBonus * f.sourceRank) *
    (1 + p.headingFitBonus * f.headingFit) *
    (f.statesDefault ? p.defaultLineFactor : 1) *
    (f.statesAmount ? p.amountFactor : 1) *
    (f.namesExcluded ? p.excludedFactor : 1)
  );
}

/** The features with the switched-off ones at their neutral value. */
export function neutralize(f: UnitFeatures, off: ReadonlySet<FeatureName>): UnitFeatures {
  if (off.size === 0) return f;
  const out = { ...f };
  for (const name of FEATURE_NAMES) if (off.has(name)) out[name] = NEUTRAL_FEATURES[name];
  return out;
}

/**
 * Every unit of the sources with its features and score for the question, the question's
 * weights, and the best coverage of one source; undefined when the sources have no unit, the
 * question weighs nothing or it is off-topic (weights.ts).
 */
export function scoreUnits(
  plan: QuestionPlan,
  sources: AnswerSource[],
  profile: ExtractiveProfile,
  off: ReadonlySet<FeatureName>,
  scorer?: UnitScorer,
): Scored | undefined {
  const read = readSources(sources, profile.midSection);
  const weighed = weigh(plan, read, profile);
  if (!weighed) return undefined;
  const { weights, ids, idWeight, total, coverage } = weighed;
  const fits = new Map<string, number>();
  // A definition's topic: how each page names it is read once per source.
  const topic =
    (plan.type === 'definition' || plan.type === 'option') &&
    plan.topic &&
    (plan.topicTerms.size > 0 || plan.topicIds.length > 0);
  const pages = topic ? sources.map((source) => pageNaming(source, plan.topicTerms)) : [];
  const candidates = read.units.map((record): Candidate => {
    const key = `${record.sourceIndex}\u0000${record.unit.heading}`;
    let fit = fits.get(key);
    if (fit === undefined) {
      fit = record.unit.heading ? headingFit(weighed, record.unit.heading) : 0;
      fits.set(key, fit);
    }
    const place = { sources: sources.length, fit, page: pages[record.sourceIndex] };
    const { features, bodyMatched, ownMatched } = describeUnit(record, plan, weighed, place, profile);
    return {
      ...record,
      features,
      relevance: relevanceOf(features, profile),
      bodyMatched,
      ownMatched,
      quality: qualityOf(features, profile),
      score: scorer
        ? learnedLogScore(scorer, neutralize(features, off), plan.type, record.unit.kind)
        : combine(neutralize(features, off), profile),
    };
  });
  if (scorer) relativeScores(candidates.map((c) => c.score)).forEach((v, i) => (candidates[i]!.score = v));
  return { candidates, weights, ids, idWeight, total, coverage };
}
