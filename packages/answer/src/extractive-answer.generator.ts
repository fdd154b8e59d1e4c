import type { AnswerGenerator, AnswerRequest, AnswerSource, HistoryTurn } from '@kbqa/core';
import { extractiveSummary, splitMarkdownUnits, type TextUnit } from '@kbqa/text';
import { throwIfAborted } from './abort.util';
import { condenseFollowUp } from './follow-up.util';
import { containsIdentifier, identifiers, terms } from './terms.util';

/** What the extractive generator answers when the sources do not cover the question. */
export const NOT_COVERED_ANSWER = "I couldn't find this in the documentation.";

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
}

interface Candidate {
  unit: TextUnit;
  sourceIndex: number;
  source: AnswerSource;
  terms: string[];
  termSet: Set<string>;
  headingTerms: Set<string>;
  lower: string;
  relevance: number;
  bodyMatched: boolean;
  score: number;
}

const BOILERPLATE =
  /^(?:see|check|refer to|read more|for more (?:info|information|details)|click|the following|as follows|for example[:,]?$|example:?$|note:?$)|\b(?:see|check) (?:here|below|above|the docs?)\b/i;
const ASKS_HOW = /\b(?:how|example|examples|snippet|syntax|show me|write|configure|set ?up|install)\b/i;

/**
 * The embedded default generator: no model, answers with the most relevant sentences of the
 * retrieved sources, each followed by its citation `[n]`, plus at most one code block when the
 * question asks how. Ignores `temperature`, `systemPrompt`, `additionalContext` and `history`
 * (history only matters to {@link condenseQuestion}).
 *
 * Abort: when `signal` aborts, the iterator throws KbqaError('ABORTED') before the next piece;
 * the pieces already yielded are the partial answer.
 */
export class ExtractiveAnswerGenerator implements AnswerGenerator {
  readonly id = 'extractive';
  private readonly maxSentences: number;
  private readonly maxChars: number;
  private readonly maxCodeChars: number;
  private readonly minRelevance: number;
  private readonly minTopicality: number;

  constructor(options: ExtractiveAnswerGeneratorOptions = {}) {
    this.maxSentences = options.maxSentences ?? 4;
    this.maxChars = options.maxChars ?? 700;
    this.maxCodeChars = options.maxCodeChars ?? 1500;
    this.minRelevance = options.minRelevance ?? 0.2;
    this.minTopicality = options.minTopicality ?? 0.35;
  }

  async *generate(request: AnswerRequest): AsyncGenerator<string, void, undefined> {
    throwIfAborted(request.signal);
    const pieces = this.compose(request.question, request.sources).flatMap(streamPieces);
    for (const [index, piece] of pieces.entries()) {
      // A macrotask between pieces lets a client disconnect be noticed mid-answer.
      if (index > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      throwIfAborted(request.signal);
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
  compose(question: string, sources: AnswerSource[]): string[] {
    const curated = sources[0]?.curated ? sources[0] : undefined;
    if (curated && curated.content.trim()) return [citeCurated(curated)];
    const candidates = this.score(question, sources);
    const sentences = candidates
      .filter((c) => c.unit.kind === 'sentence' && c.bodyMatched && c.relevance >= this.minRelevance)
      .sort((a, b) => b.score - a.score);
    const best = sentences[0];
    if (!best) return [NOT_COVERED_ANSWER];

    const chosen: Candidate[] = [];
    let chars = 0;
    for (const candidate of sentences) {
      if (chosen.length >= this.maxSentences || candidate.score < best.score * 0.5) break;
      if (chosen.length > 0 && chars + candidate.unit.text.length > this.maxChars) continue;
      if (chosen.some((c) => nearDuplicate(c, candidate))) continue;
      chosen.push(candidate);
      chars += candidate.unit.text.length;
    }

    const code = ASKS_HOW.test(question) ? this.pickCode(candidates, chosen) : undefined;
    // The example goes right after the sentence introducing it, else after its source's sentences.
    const order = (c: Candidate): number =>
      c === code && !chosen.some((s) => follows(s, c)) ? Number.MAX_SAFE_INTEGER : c.unit.position;
    if (code) chosen.push(code);
    chosen.sort((a, b) => a.sourceIndex - b.sourceIndex || order(a) - order(b));
    return render(chosen);
  }

  private pickCode(candidates: Candidate[], chosen: Candidate[]): Candidate | undefined {
    let pick: Candidate | undefined;
    let pickScore = 0;
    for (const c of candidates) {
      if (c.unit.kind !== 'code' || c.unit.text.length > this.maxCodeChars || !c.bodyMatched) continue;
      // Code right after a chosen sentence is usually the example that sentence introduces.
      const introduced = chosen.some((s) => follows(s, c));
      const floor = introduced ? this.minRelevance / 2 : this.minRelevance;
      if (c.relevance < floor) continue;
      const score = c.score + (introduced ? 0.25 : 0);
      if (score > pickScore) {
        pick = c;
        pickScore = score;
      }
    }
    return pick;
  }

  private score(question: string, sources: AnswerSource[]): Candidate[] {
    const candidates: Candidate[] = [];
    sources.forEach((source, sourceIndex) => {
      for (const unit of splitMarkdownUnits(source.content)) {
        const unitTerms = terms(unit.text);
        candidates.push({
          unit,
          sourceIndex,
          source,
          terms: unitTerms,
          termSet: new Set(unitTerms),
          headingTerms: new Set(terms(`${unit.heading} ${source.title}`)),
          lower: unit.text.toLowerCase(),
          relevance: 0,
          bodyMatched: false,
          score: 0,
        });
      }
    });
    const queryTerms = [...new Set(terms(question))];
    const queryIds = identifiers(question);
    if (candidates.length === 0 || (queryTerms.length === 0 && queryIds.length === 0)) return [];

    const df = new Map<string, number>();
    for (const c of candidates) for (const t of c.termSet) df.set(t, (df.get(t) ?? 0) + 1);
    const n = candidates.length;
    // BM25's idf: a term the sources never use weighs most, so an off-topic question covers little.
    const idf = (t: string): number => {
      const d = df.get(t) ?? 0;
      return Math.log(1 + (n - d + 0.5) / (d + 0.5));
    };
    const weights = new Map(queryTerms.map((t) => [t, idf(t)]));
    const maxWeight = Math.max(idf(''), ...weights.values());
    const idWeight = 1.5 * maxWeight;
    const total = [...weights.values()].reduce((a, b) => a + b, 0) + idWeight * queryIds.length;
    const bigrams = pairs(terms(question));
    const lowerAll = candidates.map((c) => c.lower).join('\n');
    let found = 0;
    for (const [t, w] of weights) if (df.has(t)) found += w;
    for (const id of queryIds) if (containsIdentifier(lowerAll, id)) found += idWeight;
    if (found / total < this.minTopicality) return [];

    for (const c of candidates) {
      let matched = 0;
      let body = 0;
      for (const [t, w] of weights) {
        if (c.termSet.has(t)) body += w;
        else if (c.headingTerms.has(t)) matched += 0.5 * w;
      }
      for (const id of queryIds) if (containsIdentifier(c.lower, id)) body += idWeight;
      matched += body;
      const phrase = bigrams.length === 0 ? 0 : countPhrases(c.terms, bigrams) / bigrams.length;
      c.relevance = Math.min(1, (matched / total) * (1 + 0.25 * phrase));
      c.bodyMatched = body > 0;
      const rank = 1 - c.sourceIndex / Math.max(1, sources.length);
      const sourceScore = Math.min(1, Math.max(0, c.source.score));
      c.score = c.relevance * quality(c.unit) * (1 + 0.25 * sourceScore + 0.25 * rank);
    }
    return candidates;
  }
}

const WORDS_PER_PIECE = 6;

/** Prose streams a few words at a time; a code block goes out whole. */
function streamPieces(text: string): string[] {
  if (text.includes('```') || text.includes('~~~')) return [text];
  const words = text.match(/\s*\S+/g) ?? [text];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += WORDS_PER_PIECE)
    out.push(words.slice(i, i + WORDS_PER_PIECE).join(''));
  const rest = text.slice(out.join('').length);
  if (rest) out.push(rest);
  return out;
}

function follows(sentence: Candidate, code: Candidate): boolean {
  return sentence.sourceIndex === code.sourceIndex && sentence.unit.position === code.unit.position - 1;
}

/** Penalties for sentences that read badly on their own: very short, boilerplate, run-on. */
function quality(unit: TextUnit): number {
  if (unit.kind === 'code') return 1;
  const words = unit.text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
  let q = 1;
  // "Default: `1048576`" is short but says something; "Usage" does not.
  if (words < 4) q *= /`|\d/.test(unit.text) ? 0.8 : 0.4;
  else if (words < 7) q *= 0.8;
  if (unit.text.length > 350) q *= 0.8;
  if (BOILERPLATE.test(unit.text)) q *= 0.5;
  if (unit.text.endsWith(':')) q *= 0.75;
  return q;
}

function pairs(sequence: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < sequence.length; i++) {
    const a = sequence[i] as string;
    const b = sequence[i + 1] as string;
    if (a !== b) out.push([a, b]);
  }
  return out;
}

function countPhrases(sequence: string[], bigrams: Array<[string, string]>): number {
  const present = new Set<string>();
  for (let i = 0; i + 1 < sequence.length; i++) present.add(`${sequence[i]} ${sequence[i + 1]}`);
  return bigrams.filter(([a, b]) => present.has(`${a} ${b}`)).length;
}

function nearDuplicate(a: Candidate, b: Candidate): boolean {
  if (a.lower === b.lower) return true;
  if (a.termSet.size === 0 || b.termSet.size === 0) return false;
  let shared = 0;
  for (const t of a.termSet) if (b.termSet.has(t)) shared++;
  return shared / (a.termSet.size + b.termSet.size - shared) >= 0.8;
}

function render(chosen: Candidate[]): string[] {
  const pieces: string[] = [];
  const citedSources = new Set(chosen.filter((c) => c.unit.kind === 'sentence').map((c) => c.sourceIndex));
  chosen.forEach((c, i) => {
    const previous = chosen[i - 1];
    const next = chosen[i + 1];
    if (c.unit.kind === 'code') {
      const intro = citedSources.has(c.sourceIndex) ? '' : `Example [${c.source.n}]:\n\n`;
      pieces.push(`${pieces.length > 0 ? '\n\n' : ''}${intro}${c.unit.text}`);
      return;
    }
    const sameParagraph =
      previous !== undefined && previous.unit.kind === 'sentence' && previous.sourceIndex === c.sourceIndex;
    const separator = pieces.length === 0 ? '' : sameParagraph ? ' ' : '\n\n';
    const introducesNext = next?.unit.kind === 'code' && follows(c, next);
    pieces.push(separator + cite(c.unit.text, c.source.n, introducesNext));
  });
  return pieces;
}

/**
 * A curated answer verbatim, its citation after it: on a line of its own after a code block or
 * list, else after the final full stop (the answer must start with exactly what was taught).
 */
function citeCurated(source: AnswerSource): string {
  const text = source.content.trim();
  const blockEnd = /(?:```|~~~)$/.test(text) || /\n\s*(?:[-*+]|\d+\.)\s[^\n]*$/.test(text);
  return `${text}${blockEnd ? '\n\n' : ' '}[${source.n}]`;
}

/** Puts ` [n]` before the sentence's final punctuation ("Sets the status code [1]."), adding a full stop when there is none. */
export function cite(sentence: string, n: number, introducesCode = false): string {
  let text = sentence.trim();
  // A sentence introducing an example that is not shown should not end in a colon.
  if (text.endsWith(':') && !introducesCode) text = `${text.slice(0, -1)}.`;
  const end = /[.!?:;]+$/.exec(text);
  if (end) return `${text.slice(0, end.index)} [${n}]${end[0]}`;
  // A list item or table row without a full stop still reads as a sentence in the answer.
  return `${text} [${n}].`;
}
