import {
  throwIfAborted,
  KbqaError,
  type AnswerGenerator,
  type AnswerRequest,
  type AnswerSource,
  type HistoryTurn,
} from '@kbqa/core';
import { extractiveSummary } from '@kbqa/text';
import { guardPieces } from './answer-hygiene';
import { FEATURE_NAMES, type FeatureName, type UnitFeatures } from './extractive/features';
import { PASS_NAMES, runPasses } from './extractive/passes';
import { planQuestion } from './extractive/plan';
import { DEFAULT_PROFILE, type ExtractiveProfile } from './extractive/profile';
import { citeCurated, notCovered, NOT_COVERED_ANSWER, render, streamPieces } from './extractive/render';
import { scoreUnits } from './extractive/score';
import { checkedScorer, SHIPPED_SCORER, type UnitScorer } from './extractive/unit-scorer';
import { choose } from './extractive/strategies';
import type { Candidate } from './extractive/types';
import { containsIdentifier } from './terms.util';
import { condenseFollowUp } from './follow-up.util';

export { FEATURE_NAMES, type FeatureName, type UnitFeatures } from './extractive/features';
export { isDefining } from './extractive/defining';
export { namesWhatDocsLack } from './extractive/gates';
export { PASS_NAMES, type PassName } from './extractive/passes';
export {
  DEFAULT_PROFILE,
  MIN_PASSAGE_COVERAGE,
  MIN_PASSAGE_COVERAGE_LOOKED_UP,
  type ExtractiveProfile,
} from './extractive/profile';
export { cite, NOT_COVERED_ANSWER, SEE_ALSO } from './extractive/render';

export { UNIT_SCORER_INPUTS, unitScorerInputs, type UnitScorer } from './extractive/unit-scorer';

/** The scorer a generator uses unless told otherwise (see docs/answers.md for the measurement). */
const DEFAULT_SCORER: 'learned' | 'hand' = 'learned';

export interface ExtractiveAnswerGeneratorOptions {
  /** Most sentences in an answer (default 4). */
  maxSentences?: number;
  /** Character budget for the sentences, citations excluded (default 700). */
  maxChars?: number;
  /** Longest code block that may be quoted (default 1500); longer ones are never cut, only skipped. */
  maxCodeChars?: number;
  /**
   * Share of the question's weighted terms (0-1) a sentence must cover to be used (default 0.2).
   * Below it for every sentence, the answer is {@link NOT_COVERED_ANSWER}.
   */
  minRelevance?: number;
  /**
   * Share of the question's weighted terms (0-1) that must occur somewhere in the sources
   * (default 0.35); below it the question is off-topic and the answer is {@link NOT_COVERED_ANSWER}.
   * Terms the sources never use weigh most, so "pizza dough recipe" against web-framework docs
   * stays far below it even when a common word matches.
   */
  minTopicality?: number;
  /**
   * Floor of the best passage's query-term coverage (default MIN_PASSAGE_COVERAGE, or
   * MIN_PASSAGE_COVERAGE_LOOKED_UP for a request with `unknownWords`).
   */
  minCoverage?: number;
  /**
   * Passes ({@link PASS_NAMES}) and score features ({@link FEATURE_NAMES}) to switch off, for an
   * ablation: a pass is skipped, a feature takes its neutral value in the score. An unknown name
   * throws CONFIG_INVALID.
   */
  disabled?: string[];
  /**
   * What the strategies choose from: the learned unit scorer (extractive/unit-scorer.ts, trained
   * by bench/answers/train-scorer.js) or the hand-set product of factors. Default: 'learned'.
   */
  scorer?: 'learned' | 'hand';
  /** The learned scorer's weights, instead of the shipped ones (for training and its evaluation). */
  unitScorer?: UnitScorer;
}

/**
 * One unit (sentence or code block) of the sources as the generator scored it for a question:
 * what the rules choose from. {@link ExtractiveAnswerGenerator.scoredUnits} returns them so a
 * benchmark can judge the choice (bench/answers/sentence-choice.js).
 */
export interface ScoredUnit {
  kind: 'sentence' | 'code';
  text: string;
  /** The nearest heading above the unit. */
  heading: string;
  /** The unit's source among the given ones, from 0, and the retriever's score of it. */
  sourceIndex: number;
  sourceScore: number;
  /** Order among the sentences of its section (a passage cut mid-section starts at 2), and in its passage. */
  sectionIndex: number;
  position: number;
  /** The generator's score, from which the rules pick. */
  score: number;
  /** The named features the score combines (none switched off). */
  features: UnitFeatures;
  /** Share of the question's weighted terms and names the unit and its heading hold (0-1). */
  relevance: number;
  /** Whether the unit's own text (not only its heading) has one of the question's terms. */
  bodyMatched: boolean;
  /** Whether it has one of the question's own words, not only the conversation's topic. */
  ownMatched: boolean;
  /** Share of the question's terms its heading and page title hold (0-1). */
  headingOverlap: number;
  /** Whether it writes a name the question writes in code form (`reply.code`, `bodyLimit`). */
  namesAskedId: boolean;
}

/** The scored units of a question and those the answer quotes ({@link ExtractiveAnswerGenerator.selectUnits}). */
export interface UnitSelection {
  /** Every unit of the sources, in source and document order, scored. */
  candidates: Candidate[];
  /** The units the answer quotes, in answer order (the strategy's, then the passes'). */
  chosen: Candidate[];
  profile: Readonly<ExtractiveProfile>;
}

const SWITCHABLE = new Set<string>([...PASS_NAMES, ...FEATURE_NAMES]);

/**
 * The embedded default generator: no model, answers with the most relevant sentences of the
 * retrieved sources, each followed by its citation `[n]`, shaped by the question's type
 * (extractive/plan.ts):
 *
 * - definition / option: the topic's own page (its title or path names the topic) and section
 *   over pages where the topic is a qualifier, its defining sentence ("X is …") first;
 * - how-to: the sentences of the section whose heading matches, in document order, with its
 *   first code block;
 * - comparison: sentences that name both sides first;
 * - otherwise: sentences by coverage of the question's distinct content terms (identifiers and
 *   option names weigh more) and their position in their section;
 *
 * then the passes of extractive/passes.ts. Markup that is not prose never reaches the answer.
 * When the best source covers too little of the question (MIN_PASSAGE_COVERAGE) the answer is
 * {@link NOT_COVERED_ANSWER} and a list of the closest pages. Ignores `temperature`,
 * `systemPrompt`, `additionalContext` and `history` (history only matters to
 * {@link condenseQuestion}).
 *
 * Abort: when `signal` aborts, the iterator throws KbqaError('ABORTED') before the next piece;
 * the pieces already yielded are the partial answer.
 */
export class ExtractiveAnswerGenerator implements AnswerGenerator {
  readonly id = 'extractive';
  readonly usesUnknownWords = true;
  private readonly profile: Readonly<ExtractiveProfile>;
  private readonly off: ReadonlySet<string>;
  private readonly featuresOff: ReadonlySet<FeatureName>;
  /** The learned scorer, or undefined for the hand score. */
  private readonly scorer: UnitScorer | undefined;

  constructor(options: ExtractiveAnswerGeneratorOptions = {}) {
    const { disabled = [], minCoverage } = options;
    const unknown = disabled.filter((name) => !SWITCHABLE.has(name));
    if (unknown.length > 0)
      throw new KbqaError(
        'CONFIG_INVALID',
        `Unknown pass or feature to disable: ${unknown.join(', ')}. Passes: ${PASS_NAMES.join(', ')}. ` +
          `Features: ${FEATURE_NAMES.join(', ')}.`,
      );
    const d = DEFAULT_PROFILE;
    const learned = (options.scorer ?? DEFAULT_SCORER) === 'learned';
    this.profile = Object.freeze({
      ...d,
      ...(learned ? { relevantFloorShare: d.learnedFloorShare, defineFloorShare: d.learnedFloorShare } : {}),
      maxSentences: options.maxSentences ?? d.maxSentences,
      maxChars: options.maxChars ?? d.maxChars,
      maxCodeChars: options.maxCodeChars ?? d.maxCodeChars,
      minRelevance: options.minRelevance ?? d.minRelevance,
      minTopicality: options.minTopicality ?? d.minTopicality,
      // A floor given applies whether or not the question's words were looked up.
      minCoverage: minCoverage ?? d.minCoverage,
      minCoverageLookedUp: minCoverage ?? d.minCoverageLookedUp,
    });
    this.off = new Set(disabled);
    this.featuresOff = new Set(FEATURE_NAMES.filter((name) => this.off.has(name)));
    this.scorer = learned ? checkedScorer(options.unitScorer ?? SHIPPED_SCORER) : undefined;
  }

  async *generate(request: AnswerRequest): AsyncGenerator<string, void, undefined> {
    throwIfAborted(request.signal);
    yield* this.stream(
      await this.answerPieces(request.question, request.sources, request.context, request.unknownWords),
      request.signal,
    );
  }

  /**
   * The pieces {@link generate} streams. A subclass may compute them elsewhere (a worker thread
   * of @kbqa/read-pool) with {@link composePieces}: composing is CPU work that would hold up
   * the event loop.
   */
  protected answerPieces(
    question: string,
    sources: AnswerSource[],
    context?: string,
    unknownWords?: string[],
  ): Promise<string[]> {
    return Promise.resolve(this.composePieces(question, sources, context, unknownWords));
  }

  /** {@link compose}'s answer cut into the pieces that are streamed. */
  composePieces(
    question: string,
    sources: AnswerSource[],
    context?: string,
    unknownWords?: string[],
  ): string[] {
    return this.compose(question, sources, context, unknownWords).flatMap((text) =>
      streamPieces(text, this.profile.wordsPerPiece),
    );
  }

  private async *stream(pieces: string[], signal: AbortSignal): AsyncGenerator<string, void, undefined> {
    for (const [index, piece] of pieces.entries()) {
      // A macrotask between pieces lets a client disconnect be noticed mid-answer.
      if (index > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      throwIfAborted(signal);
      yield piece;
    }
  }

  /**
   * Keeps the question, except for a short follow-up leaning on the previous turn ("what about
   * its options?", "and in v5?"): then key terms of the last history prompt are prepended.
   * See {@link condenseFollowUp}. Never throws, like the OpenAI generator's (nothing to abort here).
   */
  condenseQuestion(question: string, history: HistoryTurn[], _signal: AbortSignal): Promise<string> {
    return Promise.resolve(condenseFollowUp(question, history));
  }

  /** Extractive summary: best sentences by in-document term frequency and position, in document order. */
  summarize(text: string, maxChars: number, signal: AbortSignal): Promise<string> {
    throwIfAborted(signal);
    return Promise.resolve(extractiveSummary(text, maxChars));
  }

  /**
   * The answer as the pieces that are streamed. A curated source (a taught answer, always first)
   * is the answer: its text as the operator wrote it, cited, and nothing picked from other pages
   * after it, which could only dilute or contradict it.
   */
  compose(question: string, sources: AnswerSource[], context?: string, unknownWords?: string[]): string[] {
    const curated = sources[0]?.curated ? sources[0] : undefined;
    if (curated && curated.content.trim()) return [citeCurated(curated)];
    const { profile } = this;
    const plan = planQuestion(question, context, unknownWords);
    if (plan.lacksTopic) return notCovered(sources, profile);
    const scored = scoreUnits(plan, sources, profile, this.featuresOff, this.scorer);
    if (!scored) return [NOT_COVERED_ANSWER];
    const floor = plan.lookedUp ? profile.minCoverageLookedUp : profile.minCoverage;
    if (scored.coverage < floor) return notCovered(sources, profile);
    const ctx = { plan, scored, profile, featuresOff: this.featuresOff };
    const chosen = choose(ctx);
    if (chosen.length === 0) return notCovered(sources, profile);
    const pieces = render(runPasses(chosen, ctx, this.off));
    // The hygiene guard drops what a reader must not see (a sentence announcing a block that is
    // not shown, one cut mid-thought, markup, repeats); an answer left empty is no answer.
    const clean = guardPieces(pieces, new Set(sources.map((s) => s.n)));
    return clean.length > 0 ? clean : notCovered(sources, profile);
  }

  /**
   * What the answer is chosen from and what it chose, before rendering: every unit of the sources
   * scored for the question, and the units {@link compose} would quote (the strategy's, after the
   * passes; empty when a gate says "not covered"). Undefined when no unit matches the question.
   * The model's context (model-context.builder.ts) is built from it.
   */
  selectUnits(
    question: string,
    sources: AnswerSource[],
    context?: string,
    unknownWords?: string[],
  ): UnitSelection | undefined {
    const { profile } = this;
    const plan = planQuestion(question, context, unknownWords);
    const scored = scoreUnits(plan, sources, profile, this.featuresOff, this.scorer);
    if (!scored) return undefined;
    const floor = plan.lookedUp ? profile.minCoverageLookedUp : profile.minCoverage;
    if (plan.lacksTopic || scored.coverage < floor)
      return { candidates: scored.candidates, chosen: [], profile };
    const ctx = { plan, scored, profile, featuresOff: this.featuresOff };
    return { candidates: scored.candidates, chosen: runPasses(choose(ctx), ctx, this.off), profile };
  }

  /**
   * Every unit of the sources with the score the rules choose from, in source order; empty when
   * no unit matches the question (the answer is then "not covered"). For benchmarks of sentence
   * choice, which compare this score with other orderings of the same units.
   */
  scoredUnits(
    question: string,
    sources: AnswerSource[],
    context?: string,
    unknownWords?: string[],
  ): ScoredUnit[] {
    const plan = planQuestion(question, context, unknownWords);
    const scored = scoreUnits(plan, sources, this.profile, this.featuresOff, this.scorer);
    if (!scored) return [];
    const asked = plan.written;
    return scored.candidates.map((c) => {
      let overlap = 0;
      for (const t of c.headingTerms) if (asked.has(t)) overlap++;
      return {
        kind: c.unit.kind,
        text: c.unit.text,
        heading: c.unit.heading,
        sourceIndex: c.sourceIndex,
        sourceScore: c.source.score,
        sectionIndex: c.sectionIndex,
        position: c.unit.position,
        score: c.score,
        features: c.features,
        relevance: c.relevance,
        bodyMatched: c.bodyMatched,
        ownMatched: c.ownMatched,
        headingOverlap: overlap / Math.max(1, asked.size),
        namesAskedId: scored.ids.some((id) => containsIdentifier(c.lower, id)),
      };
    });
  }
}
