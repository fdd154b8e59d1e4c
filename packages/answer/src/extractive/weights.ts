import { containsIdentifier } from '../terms.util';
import type { QuestionPlan } from './plan';
import type { ExtractiveProfile } from './profile';
import type { QueryWeights } from './types';
import type { ReadSources } from './units';

/** The question's weights against the sources, and the best coverage of a single source. */
export interface Weighed extends QueryWeights {
  coverage: number;
}

/**
 * Weighs the question's terms by how rare they are among the units (BM25's idf) and its names
 * in code form above them all. Undefined when the question weighs nothing or when the sources
 * hold less than `minTopicality` of its weight: the question is off-topic.
 */
export function weigh(
  plan: QuestionPlan,
  read: ReadSources,
  profile: ExtractiveProfile,
): Weighed | undefined {
  const { units, sourceTerms, sourceLower } = read;
  const queryTerms = plan.terms;
  const queryIds = plan.ids;
  if (units.length === 0 || (queryTerms.length === 0 && queryIds.length === 0)) return undefined;

  const df = new Map<string, number>();
  for (const c of units) for (const t of c.termSet) df.set(t, (df.get(t) ?? 0) + 1);
  const n = units.length;
  // BM25's idf: a term the sources never use weighs most, so an off-topic question covers little.
  const idf = (t: string): number => {
    const d = df.get(t) ?? 0;
    return Math.log(1 + (n - d + 0.5) / (d + 0.5));
  };
  // A term the sources never use weighs as much as their rarest one, not the theoretical
  // maximum: one paraphrased word ("colorized") must not make a covered question off-topic.
  let rarest = 0;
  for (const t of queryTerms) if (df.has(t)) rarest = Math.max(rarest, idf(t));
  const weightOf = (t: string): number =>
    df.has(t) ? idf(t) : Math.max(rarest, profile.unknownTermShare * idf(''));
  const weights = new Map(queryTerms.map((t) => [t, weightOf(t)]));
  const maxWeight = Math.max(idf(''), ...weights.values());
  const idWeight = profile.idWeight * maxWeight;
  // When no source mentions any of the products the question names ("deploy to Heroku with a
  // Procfile"), they are what it asks about, as much as a name in code is: weighed like one, an
  // answer about deploying elsewhere falls below the coverage floor instead of being offered
  // for it. One name the sources know ("Express or Connect middleware") keeps the others light.
  const named = plan.properNames.filter((t) => weights.has(t));
  if (named.length > 0 && named.every((t) => !df.has(t))) for (const t of named) weights.set(t, idWeight);
  // The conversation's topic keeps sentences on the subject, but below the follow-up's own words.
  // A topic word no source uses is left out: the follow-up may have moved on from it ("validate
  // the body" -> "and how do I reuse a schema?"), and weighed as unknown it counted against
  // every source, so a covered follow-up was answered "not found".
  for (const t of plan.contextTerms) {
    if (!weights.has(t) && df.has(t)) weights.set(t, profile.contextShare * weightOf(t));
  }
  const total = [...weights.values()].reduce((a, b) => a + b, 0) + idWeight * queryIds.length;
  const lowerAll = sourceLower.join('\n');
  let found = 0;
  for (const [t, w] of weights) if (df.has(t)) found += w;
  for (const id of queryIds) if (containsIdentifier(lowerAll, id)) found += idWeight;
  if (found / total < profile.minTopicality) return undefined;

  let coverage = 0;
  sourceTerms.forEach((all, i) => {
    let covered = 0;
    for (const [t, w] of weights) if (all.has(t)) covered += w;
    for (const id of queryIds) if (containsIdentifier(sourceLower[i] ?? '', id)) covered += idWeight;
    coverage = Math.max(coverage, covered / total);
  });
  return { weights, ids: queryIds, idWeight, total, coverage };
}
