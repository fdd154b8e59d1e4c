import { KbqaError } from '@kbqa/core';
import type { QuestionType } from '../question-type.util';
import { FEATURE_NAMES, type UnitFeatures } from './features';
import shipped from './unit-scorer.weights.json';

/**
 * The learned unit scorer: a linear function of a unit's named features (features.ts), its kind
 * and the question's type, read relative to the question's best unit. Its weights are trained from the development answers
 * sets by bench/answers/train-scorer.js (listwise: within each question, the units that hold a key
 * fact should score above the others) and shipped in unit-scorer.weights.json. It replaces the
 * hand-set product of factors (score.ts `combine`) where the generator is built with
 * `scorer: 'learned'`; the strategies and passes then choose from its score as from the hand one.
 */
export interface UnitScorer {
  /** The input names, in {@link UNIT_SCORER_INPUTS} order: a file trained on other inputs is refused. */
  inputs: string[];
  weights: number[];
}

const TYPES: QuestionType[] = [
  'definition',
  'how-to',
  'comparison',
  'option',
  'troubleshooting',
  'yes-no',
  'other',
];

type Input = [name: string, value: (f: UnitFeatures, type: QuestionType, code: number) => number];

/**
 * What the scorer reads. The features as extracted, except the section ordinal, read as the
 * inverse of the place (1 for a section's first sentence, 0 for code) so that it falls with the
 * place as the hand score's lead bonus does; then the unit's kind, the question's type, and the
 * interactions the hand rules encode per type (code for how-to and troubleshooting questions,
 * term coverage and heading fit by type).
 */
const INPUTS: Input[] = [
  ['bias', () => 1],
  ...FEATURE_NAMES.map((name): Input => [
    name,
    (f) => (name === 'sectionOrdinal' ? (f.sectionOrdinal > 0 ? 1 / f.sectionOrdinal : 0) : f[name]),
  ]),
  ['code', (_f, _t, code) => code],
  ...TYPES.map((t): Input => [`type:${t}`, (_f, type) => Number(type === t)]),
  ...TYPES.map((t): Input => [`code×${t}`, (_f, type, code) => (type === t ? code : 0)]),
  ...TYPES.map((t): Input => [`termCoverage×${t}`, (f, type) => (type === t ? f.termCoverage : 0)]),
  ['termCoverage×headingFit', (f) => f.termCoverage * f.headingFit],
];

/** The names of the scorer's inputs, in the order of its weights. */
export const UNIT_SCORER_INPUTS: readonly string[] = INPUTS.map(([name]) => name);

/** The scorer's inputs for one unit, in {@link UNIT_SCORER_INPUTS} order (what training reads too). */
export function unitScorerInputs(
  features: UnitFeatures,
  type: QuestionType,
  kind: 'sentence' | 'code',
): number[] {
  const code = kind === 'code' ? 1 : 0;
  return INPUTS.map(([, value]) => value(features, type, code));
}

/** A scorer checked against the inputs this version computes. */
export function checkedScorer(scorer: UnitScorer): UnitScorer {
  const same =
    scorer.inputs.length === UNIT_SCORER_INPUTS.length &&
    scorer.inputs.every((name, i) => name === UNIT_SCORER_INPUTS[i]) &&
    scorer.weights.length === scorer.inputs.length &&
    scorer.weights.every((w) => Number.isFinite(w));
  if (!same)
    throw new KbqaError(
      'CONFIG_INVALID',
      `The unit scorer's weights are for other inputs than this version computes (${UNIT_SCORER_INPUTS.length}); ` +
        'train them again with bench/answers/train-scorer.js',
    );
  return scorer;
}

/** The scorer trained on every development set, as shipped with the package. */
export const SHIPPED_SCORER: UnitScorer = { inputs: shipped.inputs, weights: shipped.weights };

/**
 * A unit's learned log-score: the linear function of its inputs. Only differences between the
 * units of one question mean something (training compares a question's units with each other), so
 * {@link relativeScores} turns a question's log-scores into scores.
 */
export function learnedLogScore(
  scorer: UnitScorer,
  features: UnitFeatures,
  type: QuestionType,
  kind: 'sentence' | 'code',
): number {
  const x = unitScorerInputs(features, type, kind);
  let z = 0;
  for (let i = 0; i < x.length; i++) z += (x[i] ?? 0) * (scorer.weights[i] ?? 0);
  return z;
}

/**
 * A question's unit scores from their log-scores: exp(z − the best z), so the best unit scores 1
 * and a unit scoring half of it is half as likely, by the scorer, to be the one that answers. The
 * strategies' floors ("at least half the best score") then mean what they meant for the hand
 * score, which is a product of factors too.
 */
export function relativeScores(logScores: number[]): number[] {
  const top = Math.max(...logScores);
  return logScores.map((z) => Math.exp(z - top));
}
