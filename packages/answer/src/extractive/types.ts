import type { AnswerSource } from '@kbqa/core';
import type { TextUnit } from '@kbqa/text';
import type { FeatureName, UnitFeatures } from './features';
import type { QuestionPlan } from './plan';
import type { ExtractiveProfile } from './profile';

/** A unit of a source, and whether its heading comes from the source's heading path. */
export type SourceUnit = TextUnit & { inherited?: boolean };

/** A unit of the sources as read, before it is weighed against the question. */
export interface UnitRecord {
  unit: SourceUnit;
  sourceIndex: number;
  source: AnswerSource;
  terms: string[];
  termSet: Set<string>;
  headingTerms: Set<string>;
  lower: string;
  /** Order among the sentences under the same heading of the same source, from 0. */
  sectionIndex: number;
}

/** A unit the strategies choose from: as read, its features and its score. */
export interface Candidate extends UnitRecord {
  /** What the score is made of (features.ts), as extracted: no feature switched off. */
  features: UnitFeatures;
  /** Share of the question's weighted terms and names the unit and its heading hold (0-1). */
  relevance: number;
  /** Whether the unit's own text (not only its heading) has one of the question's terms. */
  bodyMatched: boolean;
  /** Whether the text has one of the question's own words (not only the conversation's topic). */
  ownMatched: boolean;
  /** How well it reads on its own (0-1), from its quality features. */
  quality: number;
  score: number;
}

/** The question's terms weighed against the sources. */
export interface QueryWeights {
  /** Question (and context) content terms and their weights (idf over the units). */
  weights: Map<string, number>;
  ids: string[];
  /** The weight of each name in code form. */
  idWeight: number;
  total: number;
}

/** What the generator knows about one question against its sources. */
export interface Scored extends QueryWeights {
  candidates: Candidate[];
  /** Best query-term coverage of a single source (0-1). */
  coverage: number;
}

/** What strategies and passes read: the question's plan, the scored units, the tuning. */
export interface Context {
  plan: QuestionPlan;
  scored: Scored;
  profile: Readonly<ExtractiveProfile>;
  /** Features switched off: they read as their neutral value (score.ts). */
  featuresOff: ReadonlySet<FeatureName>;
}
