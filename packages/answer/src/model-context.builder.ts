import type { AnswerSource } from '@kbqa/core';
import { ExtractiveAnswerGenerator } from './extractive-answer.generator';
import { introOf } from './extractive/neighbours';
import { antecedentOf } from './extractive/pass/antecedents';
import { DEFAULT_PROFILE } from './extractive/profile';
import type { Candidate, UnitRecord } from './extractive/types';
import { readSources } from './extractive/units';
import { sourceHeader } from './openai.prompts';

/**
 * The token budget of a model's context when none is configured (`KBQA_LLM_CONTEXT_TOKENS`).
 * Retrieval caps context recall below the 0.95, so the default is the smallest budget
 * whose context holds the key facts as often as the whole retrieved chunks do, chosen on the
 * development answers sets with a margin for text nobody tuned on; a larger one only makes the
 * prompt slower to read (docs/answers.md, "The model's context"; figures in docs/benchmarks.md).
 */
export const DEFAULT_MODEL_CONTEXT_TOKENS = 750;

/**
 * The steps of {@link buildModelContext} past ranking units by score, each switchable by name for
 * an experiment (bench/answers/context-recall.js):
 * - answerFirst: the units the extractive answer quotes go in first, in its order;
 * - density: the other units by score per token (greedy knapsack), not by score alone;
 * - neighbours: a unit brings what it cannot be read without, when that fits (a sentence's
 *   antecedent, a list item's introduction, the sentence introducing a code block).
 */
export const MODEL_CONTEXT_STEPS = ['answerFirst', 'density', 'neighbours'] as const;

export type ModelContextStep = (typeof MODEL_CONTEXT_STEPS)[number];

/** What the context is built for: the answer generator's request, as far as it matters here. */
export interface ModelContextInput {
  question: string;
  /** The retrieved sources, numbered as the answer cites them. */
  sources: AnswerSource[];
  /** The conversation's topic (AnswerRequest.context). */
  context?: string;
  /** The question's words no page has (AnswerRequest.unknownWords). */
  unknownWords?: string[];
}

export interface ModelContextOptions {
  /** Most tokens the passages and their `[n] title — link` lines may take ({@link estimateTokens}). */
  budgetTokens: number;
  /** Whose ranking of units is used; a default {@link ExtractiveAnswerGenerator} otherwise. */
  extractive?: ExtractiveAnswerGenerator;
  /** Steps ({@link MODEL_CONTEXT_STEPS}) switched off, for an experiment. */
  disabled?: readonly ModelContextStep[];
}

/** The part of one source the model is given. */
export interface ModelPassage {
  /** The source's place among the given sources, from 0: it is cited as `[sources[sourceIndex].n]`. */
  sourceIndex: number;
  /** Its chosen units in document order, under their headings; "…" where units were left out. */
  text: string;
}

export interface ModelContext {
  /** One per source that has a chosen unit, in the sources' order. */
  passages: ModelPassage[];
  /** The estimated tokens of the passages with their source lines; at most the budget. */
  tokens: number;
}

/**
 * A token count without the model's tokenizer: characters / 4, rounded up. Byte-pair vocabularies
 * of the instruct models a CPU can run spend about four characters of English documentation per
 * token, a little fewer on code; words × 1.3, the other rule of thumb, undercounts markdown,
 * whose punctuation, backticks and identifiers are tokens of their own. A budget is a target for
 * the time spent reading the prompt, not a hard limit of the model, so an estimate within a tenth
 * either way serves (docs/retrieval-experiments.md compares it with a real tokenizer).
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * The context a language model answers from: the units (sentences, list items, code blocks) the
 * extractive generator ranks best for the question across the retrieved sources, under a token
 * budget, instead of whole chunks, because on a CPU reading the prompt is most of the wait.
 *
 * Order of filling: a curated source (a taught answer) whole, as the answer is made from it; the
 * units the extractive answer quotes; then the others by the extractive score per token. Each unit comes
 * with what it cannot be read without when that fits too, and is left out when even it alone
 * does not fit, so a shorter unit after it may still go in. Each source's chosen units are shown
 * in document order under their headings, so the model reads them as the page wrote them, and
 * keep the source's place for `[n]` citations. A question no unit matches (the generator finds
 * it off-topic) gets the sources' opening units, in order: the model then says it is not covered.
 */
export function buildModelContext(input: ModelContextInput, options: ModelContextOptions): ModelContext {
  const { sources } = input;
  const off = new Set(options.disabled ?? []);
  const extractive = options.extractive ?? new ExtractiveAnswerGenerator();
  const selection = extractive.selectUnits(input.question, sources, input.context, input.unknownWords);
  const units: UnitRecord[] = selection?.candidates ?? readSources(sources, DEFAULT_PROFILE.midSection).units;
  const fill = new Filler(sources, units, options.budgetTokens);

  const curated = sources[0]?.curated ? units.filter((u) => u.sourceIndex === 0) : [];
  for (const unit of curated) fill.add([unit]);
  if (!selection) {
    for (const unit of units) fill.add([unit]);
    return fill.result();
  }
  const { candidates, chosen, profile } = selection;
  // A unit is worth its odds of holding what was asked (the score, relative to the best unit's)
  // per token it costs: a long code block must be that much likelier than the sentences it
  // would push out.
  const worth = (c: Candidate): number =>
    off.has('density') ? c.score : c.score / estimateTokens(c.unit.text);
  const byWorth = (units: Candidate[]): Candidate[] => [...units].sort((a, b) => worth(b) - worth(a));
  // The answer's units by their own worth, not in answer order, which puts a sentence's
  // antecedent before it: the sentence goes in first and brings it when both fit.
  // The "…" the answer shows after a list cut short is no unit of the sources.
  const quoted = chosen.filter((c) => candidates.includes(c));
  const ranked = [...(off.has('answerFirst') ? [] : byWorth(quoted)), ...byWorth(candidates)];
  for (const unit of ranked) {
    const before = off.has('neighbours')
      ? undefined
      : unit.unit.kind === 'code'
        ? introOf(unit, candidates)
        : antecedentOf(unit, candidates, profile);
    // With its neighbour when both fit; else alone.
    if (!before || !fill.add([before, unit])) fill.add([unit]);
  }
  return fill.result();
}

/** The units chosen so far per source, and what they cost. */
class Filler {
  private readonly chosen = new Map<number, Set<UnitRecord>>();
  private readonly cost = new Map<number, number>();
  private tokens = 0;

  constructor(
    private readonly sources: AnswerSource[],
    private readonly units: UnitRecord[],
    private readonly budget: number,
  ) {}

  /** Adds the units (of one source) when all of them fit; whether they were added or already in. */
  add(group: UnitRecord[]): boolean {
    const first = group[0];
    if (!first) return false;
    const { sourceIndex } = first;
    const current = this.chosen.get(sourceIndex) ?? new Set<UnitRecord>();
    const fresh = group.filter((u) => !current.has(u));
    if (fresh.length === 0) return true;
    const next = new Set([...current, ...fresh]);
    const cost = this.passageTokens(sourceIndex, next);
    const tokens = this.tokens - (this.cost.get(sourceIndex) ?? 0) + cost;
    if (tokens > this.budget) return false;
    this.chosen.set(sourceIndex, next);
    this.cost.set(sourceIndex, cost);
    this.tokens = tokens;
    return true;
  }

  result(): ModelContext {
    const passages = [...this.chosen.entries()]
      .sort(([a], [b]) => a - b)
      .map(([sourceIndex, chosen]) => ({ sourceIndex, text: passageText(this.inOrder(chosen)) }));
    return { passages, tokens: this.tokens };
  }

  private passageTokens(sourceIndex: number, chosen: Set<UnitRecord>): number {
    const source = this.sources[sourceIndex];
    const header = source ? sourceHeader(source) : '';
    // The blank line between passages is a token too.
    return estimateTokens(`${header}\n${passageText(this.inOrder(chosen))}\n\n`);
  }

  private inOrder(chosen: Set<UnitRecord>): UnitRecord[] {
    return this.units.filter((u) => chosen.has(u));
  }
}

/**
 * A source's chosen units as the model reads them: a heading line where the section changes,
 * sentences of one paragraph or list item on one line, a list item marked "- ", and "…" where
 * units of a section were left out, so two sentences far apart are not read as one argument.
 */
function passageText(units: UnitRecord[]): string {
  const lines: string[] = [];
  let previous: UnitRecord | undefined;
  for (const record of units) {
    const { unit } = record;
    const last = previous?.unit;
    if (!last || unit.heading !== last.heading) {
      if (unit.heading) lines.push(`## ${unit.heading}`);
    } else if (unit.position > last.position + 1) lines.push('…');
    const adjacent = last !== undefined && unit.position === last.position + 1;
    if (adjacent && unit.kind === 'sentence' && last.kind === 'sentence' && unit.block === last.block)
      lines[lines.length - 1] += ` ${unit.text}`;
    else lines.push(unit.kind === 'sentence' && unit.listItem ? `- ${unit.text}` : unit.text);
    previous = record;
  }
  return lines.join('\n');
}

/**
 * The sources as the model is given them: those with a passage, their content replaced by it,
 * their number kept, so the prompt builders and the citation filter work on them unchanged.
 */
export function contextSources(sources: AnswerSource[], context: ModelContext): AnswerSource[] {
  return context.passages.flatMap(({ sourceIndex, text }) => {
    const source = sources[sourceIndex];
    return source ? [{ ...source, content: text }] : [];
  });
}
