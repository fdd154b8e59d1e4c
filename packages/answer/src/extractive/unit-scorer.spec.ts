import { describe, expect, it } from '@jest/globals';
import { KbqaError } from '@kbqa/core';
import { source } from '../../test/extractive';
import { ExtractiveAnswerGenerator } from '../extractive-answer.generator';
import { FEATURE_NAMES, type UnitFeatures } from './features';
import {
  learnedLogScore,
  relativeScores,
  SHIPPED_SCORER,
  UNIT_SCORER_INPUTS,
  unitScorerInputs,
  type UnitScorer,
} from './unit-scorer';

const blank = (): UnitFeatures =>
  Object.fromEntries(FEATURE_NAMES.map((name) => [name, 0])) as unknown as UnitFeatures;

/** A scorer that weighs one input and nothing else. */
function only(name: string, weight = 4): UnitScorer {
  return {
    inputs: [...UNIT_SCORER_INPUTS],
    weights: UNIT_SCORER_INPUTS.map((input) => (input === name ? weight : 0)),
  };
}

describe('the learned unit scorer', () => {
  it('ships weights for exactly the inputs this version computes', () => {
    expect(SHIPPED_SCORER.inputs).toEqual(UNIT_SCORER_INPUTS);
    expect(SHIPPED_SCORER.weights.every((w) => Number.isFinite(w))).toBe(true);
    expect(SHIPPED_SCORER.weights.some((w) => w !== 0)).toBe(true);
  });

  it('refuses weights trained on other inputs, saying how to train them again', () => {
    const stale = { inputs: ['bias', 'termCoverage'], weights: [0, 1] };
    const create = () => new ExtractiveAnswerGenerator({ unitScorer: stale });
    expect(create).toThrow(KbqaError);
    expect(create).toThrow(/train-scorer/);
  });

  it('reads a section place as its inverse, the kind and the type as their own inputs', () => {
    const f = { ...blank(), sectionOrdinal: 4, termCoverage: 0.5 };
    const x = unitScorerInputs(f, 'how-to', 'code');
    const at = (name: string) => x[UNIT_SCORER_INPUTS.indexOf(name)];
    expect(at('sectionOrdinal')).toBe(0.25);
    expect(at('code')).toBe(1);
    expect(at('type:how-to')).toBe(1);
    expect(at('type:definition')).toBe(0);
    expect(at('termCoverage×how-to')).toBe(0.5);
    expect(at('code×how-to')).toBe(1);
  });

  it('scores a unit holding more of the question above one holding less, with the shipped weights', () => {
    const low = learnedLogScore(SHIPPED_SCORER, { ...blank(), termCoverage: 0.2 }, 'other', 'sentence');
    const high = learnedLogScore(SHIPPED_SCORER, { ...blank(), termCoverage: 0.9 }, 'other', 'sentence');
    expect(high).toBeGreaterThan(low);
  });

  it("reads a question's log-scores relative to its best unit", () => {
    const [best, half, none] = relativeScores([2, 2 - Math.log(2), -50]);
    expect(best).toBe(1);
    expect(half).toBeCloseTo(0.5, 10);
    expect(none).toBeCloseTo(0, 10);
  });

  it('chooses what the given weights prefer', () => {
    const sources = [
      source(1, 'Queues', '## Queues\n\nQueues retry failed jobs three times before giving up.'),
      source(2, 'Jobs', '## Jobs\n\nFailed jobs are retried by queues with a growing delay between tries.'),
    ];
    const question = 'How do queues retry failed jobs?';
    const first = (scorer: UnitScorer) =>
      new ExtractiveAnswerGenerator({ unitScorer: scorer, maxSentences: 1 })
        .compose(question, sources)
        .join('');
    expect(first(only('sourceRank'))).toMatch(/\[1\]/);
    expect(first(only('sourceRank', -4))).toMatch(/\[2\]/);
  });
});
