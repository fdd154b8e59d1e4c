import type { AnswerGenerator, AnswerRequest, AnswerSource, HistoryTurn } from '@kbqa/core';
import { cleanInline, cleanMarkup, extractiveSummary, splitMarkdownUnits, type TextUnit } from '@kbqa/text';
import { guardPieces } from './answer-hygiene';
import { withAnnouncedBlocks } from './announced-block.pass';
import { throwIfAborted } from './abort.util';
import { condenseFollowUp } from './follow-up.util';
import { analyzeQuestion, type QuestionShape } from './question-type.util';
import { containsIdentifier, identifiers, negation, stem, terms } from './terms.util';

/** What the extractive generator answers when the sources do not cover the question. */
export const NOT_COVERED_ANSWER = "I couldn't find this in the documentation.";

/** Opens the list of closest pages that follows {@link NOT_COVERED_ANSWER} when there are sources. */
export const SEE_ALSO = 'You may want to read:';

/**
 * Default floor of the best passage's query-term coverage (0-1): the share of the question's
 * weighted content terms and identifiers that the best source (its text, title and headings)
 * contains. Below it no passage is about the question and the answer is
 * {@link NOT_COVERED_ANSWER} plus the closest pages. It measures the passages, not the
 * retriever's relevance score, so recalibrating that score does not move it.
 */
export const MIN_PASSAGE_COVERAGE = 0.4;

/**
 * The floor when the question's words were looked up in the project's index
 * (AnswerRequest.unknownWords given): a question about something no page names is then caught by
 * that test ({@link namesWhatDocsLack}), and the floor is left with questions whose words the pages
 * use elsewhere. On bench/answers every figure is the same from 0.25 to 0.35, no not-covered
 * question answered; 0.4 refused "colorized log lines" and "allow replacing the error handler".
 */
export const MIN_PASSAGE_COVERAGE_LOOKED_UP = 0.3;

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
   * Floor of the best passage's query-term coverage (default {@link MIN_PASSAGE_COVERAGE}, or
   * {@link MIN_PASSAGE_COVERAGE_LOOKED_UP} for a request with `unknownWords`).
   */
  minCoverage?: number;
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

interface Candidate {
  unit: TextUnit;
  sourceIndex: number;
  source: AnswerSource;
  terms: string[];
  termSet: Set<string>;
  headingTerms: Set<string>;
  lower: string;
  /** Order among the sentences under the same heading of the same source, from 0. */
  sectionIndex: number;
  relevance: number;
  bodyMatched: boolean;
  /** Whether the text has one of the question's own words (not only the conversation's topic). */
  ownMatched: boolean;
  score: number;
}

/** What {@link ExtractiveAnswerGenerator} knows about one question against its sources. */
interface Scored {
  candidates: Candidate[];
  /** Question content terms and their weights (idf over the units). */
  weights: Map<string, number>;
  ids: string[];
  idWeight: number;
  total: number;
  /** Best query-term coverage of a single source (0-1). */
  coverage: number;
}

const BOILERPLATE =
  /^(?:see|check|refer to|read more|for more (?:info|information|details)|click|the following|as follows|for example[:,]?$|example:?$|note:?$)|\b(?:see|check) (?:here|below|above|the docs?)\b/i;
const ASKS_DEFAULT = /\bdefaults?\b|\bby default\b/i;
const ASKS_HOW = /\b(?:how|example|examples|snippet|syntax|show me|write|configure|set ?up|install)\b/i;
/** "How long …?", "How many …?": the answer is an amount. */
const ASKS_AMOUNT = /\bhow\s+(?:long|many|much|big|large|small|often|old|far|soon)\b/i;
/** A sentence that states an amount: a figure, or a number word with a unit ("six months"). */
const STATES_AMOUNT =
  /\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|hundred|thousand|million)\s+(?:ms|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|months?|years?|bytes?|characters?|requests?|times)\b/i;
/** Score factor of a sentence stating an amount when the question asks how long, many, much …. */
const AMOUNT_FACTOR = 1.5;

/**
 * What a reader says happened and the word pages use for it: "my hook throws" is "If a hook
 * function causes an error, it is logged and ignored". Not the same thing (a page about errors is
 * not about throwing), so a sentence with the page's word gets {@link RELATED_SHARE} of the
 * reader's word's weight, and only in scoring sentences, not in judging coverage. Stems.
 */
const RELATED = new Map<string, string[]>([
  ['throw', ['error', 'exception']],
  ['thrown', ['error', 'exception']],
  ['crash', ['error', 'exception']],
  ['exception', ['error']],
]);
const RELATED_SHARE = 0.6;

/** Share of its weight a term of the conversation's topic (AnswerRequest.context) carries. */
const CONTEXT_SHARE = 0.35;

/**
 * Score factor of the opening sentence of the topic's own page in a definition, below the 2.5 of
 * a sentence of the form "X is …" but enough for the topic's page over a section elsewhere that
 * the topic heads.
 */
const PAGE_OPENING = 2;

/** Words that frame a question of a type without naming its subject. */
const FRAME_WORDS: Record<QuestionShape['type'], string[]> = {
  definition: ['mean', 'meaning', 'purpose', 'concept', 'definition', 'explain', 'describe', 'idea'],
  option: ['option', 'setting', 'flag', 'parameter', 'mean', 'purpose', 'explain', 'describe'],
  comparison: [
    'difference',
    'differ',
    'different',
    'compare',
    'comparison',
    'versus',
    'vs',
    'between',
    'instead',
    'rather',
    'better',
  ],
  'how-to': ['set', 'setup', 'step', 'steps', 'best', 'right', 'recommended', 'correct', 'proper'],
  // The wording of a problem report: what the reader sees happen, not what the pages name.
  troubleshooting: [
    'why',
    'happen',
    'happens',
    'occur',
    'appear',
    'seem',
    'see',
    'keep',
    'still',
    'anymore',
    'suddenly',
    'fix',
    'solve',
    'resolve',
    'wrong',
  ],
  'yes-no': ['possible'],
  other: [],
};
/**
 * When something was done, not what: "a header I set earlier" is the page's "a previously set
 * header". Weighed as content, such a word (rare on every page) left covered questions short of
 * the coverage floor, answered "not covered".
 */
const WHEN_WORDS = ['earlier', 'previously', 'beforehand', 'later'];
const FRAME_STEMS: Record<QuestionShape['type'], Set<string>> = Object.fromEntries(
  Object.entries(FRAME_WORDS).map(([type, words]) => [type, new Set([...words, ...WHEN_WORDS].map(stem))]),
) as Record<QuestionShape['type'], Set<string>>;

/**
 * A problem report's idioms in the words pages use for them: no page says "get rid of" (its "rid",
 * rare everywhere, weighed as content, kept "how do I get rid of FSTDEP warnings?" below the
 * coverage floor); pages say "disable" or "remove". "After upgrading to v5" says when the problem
 * began: its "after", rare on a migration guide, weighed as content, kept "my date-time fields
 * fail validation after upgrading" below the floor; the upgrade itself is what was asked.
 */
function plainWords(question: string): string {
  return question
    .replace(/\bget(?:ting)?\s+rid\s+of\b/gi, 'disable remove')
    .replace(/\b(?:after|since|when)\s+(?=(?:upgrading|updating|migrating|moving|switching)\b)/gi, '');
}

/**
 * "X is / X are / X lets you / X provides …": the subject before the verb names the topic.
 * Matched on the sentence without code and emphasis marks, lowercased.
 */
const DEFINING =
  /^(?:an?\s+|the\s+)?([^,;:()]{1,80}?)\s+(is|are|lets|let|provides?|allows?|enables?|refers?\s+to|means?|represents?|customizes?|consists?\s+of|can\s+be|gives?|extends?|helps?)\b/;
/** "<what it is> is <topic>.": a short predicate naming the topic alone. */
const INVERTED =
  /^(?:an?\s+|the\s+)?([^,;:()]{3,80}?)\s+(?:is|are)\s+(?:an?\s+|the\s+)?([\w$.@/-]+(?:\s+[\w$.@/-]+)?)\s*[.!]?$/;
const CONTRAST =
  /\b(?:before|after|whereas|while|unlike|instead|but|than|only|always|never|differ\w*|both|however|rather)\b/i;
const PASSIVE = /^(?:is|are)\s+(?:\w+ly\s+)?(?:used|\w+ed|\w+en|also|not|only|available)\b/;
const NOT_A_SUBJECT =
  /^(?:if|when|while|in|on|at|by|for|with|to|as|after|before|once|since|there|this|that|it|these|those|you|we|note)\b/;

/**
 * The embedded default generator: no model, answers with the most relevant sentences of the
 * retrieved sources, each followed by its citation `[n]`, shaped by the question's type
 * ({@link analyzeQuestion}):
 *
 * - definition / option: the topic's own page (its title or path names the topic) and section
 *   over pages where the topic is a qualifier, its defining sentence ("X is …") first;
 * - how-to: the sentences of the section whose heading matches, in document order, with its
 *   first code block;
 * - comparison: sentences that name both sides first;
 * - otherwise: sentences by coverage of the question's distinct content terms (identifiers and
 *   option names weigh more) and their position in their section.
 *
 * Markup that is not prose ({@link cleanMarkup}) never reaches the answer. When the best source
 * covers too little of the question ({@link MIN_PASSAGE_COVERAGE}) the answer is
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
  private readonly maxSentences: number;
  private readonly maxChars: number;
  private readonly maxCodeChars: number;
  private readonly minRelevance: number;
  private readonly minTopicality: number;
  private readonly minCoverage: number | undefined;

  constructor(options: ExtractiveAnswerGeneratorOptions = {}) {
    this.maxSentences = options.maxSentences ?? 4;
    this.maxChars = options.maxChars ?? 700;
    this.maxCodeChars = options.maxCodeChars ?? 1500;
    this.minRelevance = options.minRelevance ?? 0.2;
    this.minTopicality = options.minTopicality ?? 0.35;
    this.minCoverage = options.minCoverage;
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
    return this.compose(question, sources, context, unknownWords).flatMap(streamPieces);
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
    if (namesWhatDocsLack(question, unknownWords ?? [])) return notCovered(sources);
    const shape = analyzeQuestion(question);
    const scored = this.score(question, sources, shape, context, unknownWords ?? []);
    if (!scored) return [NOT_COVERED_ANSWER];
    const floor = this.minCoverage ?? (unknownWords ? MIN_PASSAGE_COVERAGE_LOOKED_UP : MIN_PASSAGE_COVERAGE);
    if (scored.coverage < floor) return notCovered(sources);

    let chosen: Candidate[] | undefined;
    if ((shape.type === 'definition' || shape.type === 'option') && shape.topic)
      chosen = this.define(scored, shape.topic, shape.type);
    else if (shape.type === 'how-to') chosen = this.steps(scored, question);
    else if (shape.type === 'comparison' && shape.sides) chosen = this.compare(scored, shape.sides);
    chosen ??= this.relevant(scored, question);
    if (chosen.length === 0) return notCovered(sources);
    if (ASKS_DEFAULT.test(question)) chosen = withDefaultLine(chosen, scored.candidates, scored.ids);
    if (shape.type === 'how-to') chosen = withNamingLead(chosen, scored.candidates);
    if (shape.type === 'how-to' || shape.type === 'troubleshooting')
      chosen = this.withExample(
        withInstruction(chosen, scored.candidates),
        scored,
        shape.type === 'troubleshooting',
      );
    if (shape.type === 'yes-no') chosen = withDenial(chosen, scored);
    if (context) chosen = ownWordsFirst(chosen);
    else if (NAME_FIRST.has(shape.type))
      chosen = withNamedDefinition(chosen, scored.candidates, scored.ids, 0);
    else if (shape.type === 'troubleshooting')
      chosen = withNamedDefinition(chosen, scored.candidates, scored.ids, 1);
    const listed = withListNames(withAntecedents(chosen, scored.candidates), scored.candidates);
    const pieces = render(withAnnouncedBlocks(listed, scored.candidates, this.maxCodeChars));
    // The hygiene guard drops what a reader must not see (a sentence announcing a block that is
    // not shown, one cut mid-thought, markup, repeats); an answer left empty is no answer.
    const clean = guardPieces(pieces, new Set(sources.map((s) => s.n)));
    return clean.length > 0 ? clean : notCovered(sources);
  }

  /**
   * A how-to or troubleshooting answer that shows no code and states no step naming code: the
   * code block of the first sources that matches the question best, after the sentences. The
   * call a reader must write (`fs.createReadStream(…)`, an `allowUnsafeRegex` option in a code
   * comment) is often only in an example, sometimes of a page none of the sentences come from.
   * An answer whose best source already says what to write ("Set the `https` option …") keeps
   * to its pages.
   */
  private withExample(chosen: Candidate[], scored: Scored, troubleshooting: boolean): Candidate[] {
    const { candidates, weights, ids } = scored;
    const shared = (c: Candidate): number =>
      [...weights.keys()].filter((t) => c.termSet.has(t)).length +
      ids.filter((id) => containsIdentifier(c.lower, id)).length;
    const told = (c: Candidate) => c.sourceIndex === 0 && instructsWithCode(c);
    if (chosen.some((c) => c.unit.kind === 'code' || told(c))) return chosen;
    let best: Candidate | undefined;
    for (const c of candidates) {
      if (c.unit.kind !== 'code' || c.sourceIndex >= EXAMPLE_SOURCES || !c.bodyMatched) continue;
      if (c.unit.text.length > this.maxCodeChars || c.relevance < EXAMPLE_RELEVANCE) continue;
      if (TRANSCRIPT.test(c.unit.text) || SKELETON.test(c.unit.text)) continue;
      // One shared word is a coincidence: "console" brought a setup listing to a question about
      // FSTDEP warnings "in my console".
      if (shared(c) < 2) continue;
      if (!best || c.score > best.score) best = c;
    }
    if (!best) return chosen;
    if (!troubleshooting) return [...chosen, best];
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
        c.unit.text.length <= this.maxCodeChars,
    );
    return fix ? [...chosen, best, fix] : [...chosen, best];
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
    const shape = analyzeQuestion(question);
    const scored = this.score(question, sources, shape, context, unknownWords ?? []);
    if (!scored) return [];
    const asked = new Set(terms(question));
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
        relevance: c.relevance,
        bodyMatched: c.bodyMatched,
        ownMatched: c.ownMatched,
        headingOverlap: overlap / Math.max(1, asked.size),
        namesAskedId: scored.ids.some((id) => containsIdentifier(c.lower, id)),
      };
    });
  }

  /** Sentences by score, without near duplicates, within the sentence and character budgets. */
  private fill(chosen: Candidate[], ranked: Candidate[], floor: number): Candidate[] {
    let chars = chosen.reduce((n, c) => n + c.unit.text.length, 0);
    for (const candidate of ranked) {
      if (chosen.length >= this.maxSentences || candidate.score < floor) break;
      if (chosen.includes(candidate)) continue;
      if (chosen.length > 0 && chars + candidate.unit.text.length > this.maxChars) continue;
      if (chosen.some((c) => nearDuplicate(c, candidate))) continue;
      chosen.push(candidate);
      chars += candidate.unit.text.length;
    }
    return chosen;
  }

  private usable(c: Candidate): boolean {
    return c.unit.kind === 'sentence' && c.bodyMatched && c.relevance >= this.minRelevance;
  }

  /** The general rule: best sentences, grouped by source (best source first), in document order. */
  private relevant(scored: Scored, question: string): Candidate[] {
    const ranked = scored.candidates.filter((c) => this.usable(c)).sort((a, b) => b.score - a.score);
    const best = ranked[0];
    // A code block that matches the question better than any sentence ("async function
    // (instance, opts, done)" for "my async plugin that calls done() broke") is what the reader
    // has written; the opening of its section says what is wrong with it, in words the question
    // does not use.
    const topCode = scored.candidates
      .filter((c) => c.unit.kind === 'code' && c.bodyMatched && c.relevance >= this.minRelevance)
      .sort((a, b) => b.score - a.score)[0];
    if (!best) return topCode ? this.aroundCode(topCode, scored.candidates) : [];
    const opening =
      topCode && topCode.score > best.score ? sectionOpening(topCode, scored.candidates) : undefined;
    const chosen = this.fill(opening ? [opening] : [], ranked, best.score * 0.5);
    const code = ASKS_HOW.test(question) ? this.pickCode(scored.candidates, chosen) : undefined;
    // A code block shown for its neighbours comes with the sentence that introduces it ("To
    // listen on all interfaces, … like so:"), which says what the code does.
    const intro =
      code && !chosen.some((s) => follows(s, code)) ? introOf(code, scored.candidates) : undefined;
    if (intro) chosen.push(intro);
    return arrange(chosen, code, undefined);
  }

  /**
   * No sentence is about the question, but a code block is: what the reader ran ("import Fastify
   * from 'fastify'" for "node says 'Cannot use import statement outside a module' …"). The
   * answer is the block with the sentence introducing it and the one after it, which says what
   * the block needs ("If you are using ECMAScript Modules …, be sure to include "type":
   * "module" …"). A block matching less than {@link EXAMPLE_RELEVANCE} answers nothing.
   */
  private aroundCode(code: Candidate, candidates: Candidate[]): Candidate[] {
    if (code.relevance < EXAMPLE_RELEVANCE || code.unit.text.length > this.maxCodeChars) return [];
    const intro = introOf(code, candidates);
    const after = candidates.find((c) => followsWithin(code, c, 1) && quality(c.unit) >= 0.5);
    const sentences = [intro, after].filter((c): c is Candidate => c !== undefined);
    return sentences.length > 0 ? arrange(sentences, code, undefined) : [];
  }

  /**
   * Definition and option questions: the topic's own page and section over pages where the topic
   * only qualifies something else ("microservices X"), and a defining sentence first.
   */
  private define(scored: Scored, topic: string, type: 'definition' | 'option'): Candidate[] | undefined {
    const frame = FRAME_STEMS[type];
    const topicTerms = new Set(terms(topic).filter((t) => !frame.has(t)));
    const topicIds = identifiers(topic);
    if (topicTerms.size === 0 && topicIds.length === 0) return undefined;
    const pageFit = new Map<number, number>();
    const ranked: Array<{ c: Candidate; score: number; defining: boolean; defines: boolean }> = [];
    // A member's own entry or section ("`signal` - An `AbortSignal` that …" for request.signal,
    // "#### after" for fastify.after()), which names it without its receiver, if at all.
    const entries = new Set(
      topicIds.filter((id) => id.includes('.')).map((id) => definitionOf(scored.candidates, id)),
    );
    for (const c of scored.candidates) {
      if (c.unit.kind !== 'sentence') continue;
      const entry = entries.has(c);
      let page = pageFit.get(c.sourceIndex);
      if (page === undefined) {
        page = fitOfName(c.source, topicTerms);
        pageFit.set(c.sourceIndex, page);
      }
      const heading = c.unit.heading.toLowerCase();
      const ownSection =
        entry ||
        sameTerms(new Set(terms(c.unit.heading)), topicTerms) ||
        topicIds.some((id) => containsIdentifier(heading, id)) ||
        spellsTopic(c.unit.heading, topicTerms);
      const names = entry || namesTopic(c, topicTerms, topicIds);
      // An option's description often omits its name: the heading names it.
      if (!names && !(ownSection && c.sectionIndex < 2)) continue;
      const defines =
        entry ||
        (names && isDefining(c.unit.text, topicTerms, topicIds)) ||
        (type === 'option' && ownSection && c.sectionIndex === 0);
      // The first sentence under the topic's own heading on the topic's own page opens it, in
      // whatever form ("Acme can be extended with plugins, which …"), though a sentence of the
      // form "X is …" there still comes first.
      const opens = !defines && names && page > 1 && ownSection && c.sectionIndex === 0;
      const defining = defines || opens;
      const base = Math.max(c.score, this.minRelevance * quality(c.unit));
      const score = base * page * (ownSection ? 1.5 : 1) * (defines ? 2.5 : opens ? PAGE_OPENING : 1);
      ranked.push({ c, score, defining, defines });
    }
    // A definition opens with a sentence that defines or opens the topic's page whenever there is
    // one, however many of the question's other words a sentence about it has ("… supported by
    // the LTS policy …" for "What does the LTS policy promise?"). An option's name under its own
    // heading is weaker evidence, so there the factors above decide.
    const definingFirst = type === 'definition';
    // A member's own entry leads whatever the question's other words match.
    ranked.sort(
      (a, b) =>
        Number(entries.has(b.c)) - Number(entries.has(a.c)) ||
        (definingFirst ? Number(b.defining) - Number(a.defining) : 0) ||
        b.score - a.score,
    );
    let lead = ranked[0];
    if (!lead) return undefined;
    // Two defining sentences of one section ("The second parameter … is `Reply`. Reply is a core
    // object that …"): the section opens with the first, and the second reads as its sequel.
    if (lead.defining) {
      const first = lead;
      const earlier = ranked.find(
        (r) =>
          r.defines &&
          r.c.sourceIndex === first.c.sourceIndex &&
          r.c.unit.heading === first.c.unit.heading &&
          r.c.unit.position < first.c.unit.position &&
          r.c.unit.position >= first.c.unit.position - 2,
      );
      if (earlier) lead = earlier;
    }
    // The lead, then what follows it in its paragraph and section, which explains it further.
    const chosen: Candidate[] = [lead.c];
    const after = scored.candidates.filter(
      (c) =>
        c.unit.kind === 'sentence' &&
        c.sourceIndex === lead.c.sourceIndex &&
        c.unit.heading === lead.c.unit.heading &&
        c.unit.position > lead.c.unit.position &&
        c.unit.position <= lead.c.unit.position + 3 &&
        quality(c.unit) >= 0.6,
    );
    this.fill(chosen, after.slice(0, 2), 0);
    const others = scored.candidates.filter((c) => this.usable(c)).sort((a, b) => b.score - a.score);
    const top = others[0];
    if (top) this.fill(chosen, others, top.score * 0.6);
    return arrange(chosen, undefined, lead.c);
  }

  /** How-to questions: the section whose heading matches, in document order, with its first code block. */
  private steps(scored: Scored, question: string): Candidate[] | undefined {
    type Section = { fit: number; best: number; units: Candidate[]; covered: Set<string> };
    const sections = new Map<string, Section>();
    for (const c of scored.candidates) {
      const key = `${c.sourceIndex}\u0000${c.unit.heading}`;
      let section = sections.get(key);
      if (!section) {
        section = { fit: headingFit(scored, c), best: 0, units: [], covered: new Set() };
        sections.set(key, section);
      }
      section.units.push(c);
      if (c.unit.kind === 'sentence') section.best = Math.max(section.best, c.score);
      for (const t of scored.weights.keys())
        if (c.termSet.has(t) || c.headingTerms.has(t)) section.covered.add(t);
      for (const id of scored.ids) if (containsIdentifier(c.lower, id)) section.covered.add(id);
    }
    // A heading naming the question's rarest word is not enough: the section must have at least
    // half of the question's distinct terms ("reset the log level" is not "reset my password").
    const asked = scored.weights.size + scored.ids.length;
    // Among matching headings, the better retrieved source (a guide before a type reference) wins.
    const sectionRank = (s: Section): number =>
      s.fit + s.best + 0.3 * (1 - (s.units[0]?.sourceIndex ?? 0) / Math.max(1, sources));
    const sources = scored.candidates.reduce((n, c) => Math.max(n, c.sourceIndex + 1), 0);
    let pick: Section | undefined;
    for (const section of sections.values()) {
      if (section.fit < HOWTO_SECTION_FIT || section.best <= 0 || section.covered.size * 2 < asked) continue;
      if (!pick || sectionRank(section) > sectionRank(pick)) pick = section;
    }
    if (!pick) return this.codeSection(sections.values(), scored, asked);
    const chosen: Candidate[] = [];
    let chars = 0;
    let code: Candidate | undefined;
    for (const c of pick.units) {
      if (c.unit.kind === 'code') {
        if (!code && c.unit.text.length <= this.maxCodeChars) code = c;
        continue;
      }
      if (chosen.length >= this.maxSentences || quality(c.unit) < 0.5) continue;
      if (chosen.length > 0 && chars + c.unit.text.length > this.maxChars) continue;
      chosen.push(c);
      chars += c.unit.text.length;
    }
    if (chosen.length === 0) return undefined;
    // A code block far below the sentences shown would read as unrelated; keep it when it is near.
    const last = chosen[chosen.length - 1] as Candidate;
    if (code && code.unit.position > last.unit.position + 3 && !ASKS_HOW.test(question)) code = undefined;
    return arrange(chosen, code, chosen[0]);
  }

  /**
   * A how-to whose matching section is a heading over a code block and nothing else ("### Run
   * the test against different Node.js versions" over `npx -p node@10 -- npm run benchmark`): the
   * heading, as the step it names, and the block. Of several such headings, the one with the
   * fewest words the question does not ask for ("… in different branches against …") wins.
   */
  private codeSection(
    sections: Iterable<{ fit: number; best: number; units: Candidate[]; covered: Set<string> }>,
    scored: Scored,
    asked: number,
  ): Candidate[] | undefined {
    let pick: { code: Candidate; rank: number } | undefined;
    for (const section of sections) {
      if (section.fit < HOWTO_SECTION_FIT || section.best > 0 || section.covered.size * 2 < asked) continue;
      if (section.units.some((c) => c.unit.kind === 'sentence')) continue;
      const code = section.units.find(
        (c) => c.unit.kind === 'code' && c.unit.text.length <= this.maxCodeChars,
      );
      if (!code || !code.unit.heading) continue;
      const headingTerms = new Set(terms(code.unit.heading));
      const extra = [...headingTerms].filter((t) => !scored.weights.has(t)).length;
      const rank = section.fit - 0.05 * extra - 0.01 * code.sourceIndex;
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

  /** Comparisons: sentences naming both sides first, then the best about each side. */
  private compare(scored: Scored, sides: [string, string]): Candidate[] | undefined {
    const [a, b] = sides.map(sideKeys) as [SideKeys, SideKeys];
    const sentences = scored.candidates.filter((c) => c.unit.kind === 'sentence' && c.relevance > 0);
    // An enumeration ("onRequest, onResponse, preParsing, …") names both sides and compares nothing.
    const weight = (c: Candidate): number =>
      c.score *
      ((c.unit.text.match(/,/g)?.length ?? 0) >= 4 ? 0.4 : 1) *
      (CONTRAST.test(c.unit.text) ? 1.3 : 1);
    // Two names the pages define each ("`ip` - The IP address … taken from …", "`ips` - An array
    // …") differ in what those definitions say: each side's own entry, then a sentence naming both.
    const both = sentences.filter((c) => names(c, a) && names(c, b)).sort((x, y) => weight(y) - weight(x));
    const [defA, defB] = [a, b].map((side) =>
      side.ids[0] ? definitionOf(scored.candidates, side.ids[0]) : undefined,
    );
    if (defA && defB && defA !== defB)
      return arrange(
        [...definedAs(defA, scored.candidates), ...definedAs(defB, scored.candidates), ...both.slice(0, 1)],
        undefined,
        defA,
      );
    const bestOf = (side: SideKeys): Candidate | undefined =>
      sentences.filter((c) => names(c, side)).sort((x, y) => y.score - x.score)[0];
    const lead = both[0];
    const chosen: Candidate[] = [];
    if (lead) this.fill(chosen, both.slice(0, 2), 0);
    // One side's own entry, when only one is among the sources ("preClose vs onClose" with the
    // `preClose` section but not `onClose`'s): what that side is, beside what names both.
    const own = defA ?? defB;
    if (own && lead && !chosen.includes(own)) chosen.push(...definedAs(own, scored.candidates));
    // What the sentence naming both goes on to say in its paragraph or list entry is why ("Prefer
    // hooks over generic middleware. Middleware adapters work, but native integrations are
    // typically better …"), when it still names a side.
    const sequel =
      lead &&
      sentences.find(
        (c) =>
          c.sourceIndex === lead.sourceIndex &&
          c.unit.block === lead.unit.block &&
          c.unit.position === lead.unit.position + 1 &&
          [...sides.flatMap((side) => terms(side)), ...a.ids, ...b.ids].some(
            (t) => c.termSet.has(t) || containsIdentifier(c.lower, t),
          ),
      );
    if (sequel) this.fill(chosen, [sequel], 0);
    for (const c of [bestOf(a), bestOf(b)]) if (c && chosen.length < 2) this.fill(chosen, [c], 0);
    if (chosen.length === 0) return undefined;
    // "onProtoPoisoning error vs remove" weighs two values of one named setting: what the setting
    // decides, the first sentence of its own section, comes before what its values do.
    const setting = [sides[0], sides[1]].map(settingOf).find((id) => id !== undefined);
    const purpose = setting ? ownSectionOpening(scored.candidates, setting) : undefined;
    if (purpose && !chosen.includes(purpose)) {
      chosen.unshift(purpose);
      return arrange(chosen, undefined, purpose);
    }
    return arrange(chosen, undefined, chosen[0]);
  }

  private pickCode(candidates: Candidate[], chosen: Candidate[]): Candidate | undefined {
    let pick: Candidate | undefined;
    let pickScore = 0;
    for (const c of candidates) {
      if (c.unit.kind !== 'code' || c.unit.text.length > this.maxCodeChars || !c.bodyMatched) continue;
      // An example from a page none of the chosen sentences come from illustrates something else.
      if (!chosen.some((s) => s.sourceIndex === c.sourceIndex)) continue;
      // Code right after a chosen sentence is usually the example that sentence introduces; code
      // among the chosen sentences of its passage shows what they describe, in code's own words.
      const introduced = chosen.some((s) => follows(s, c));
      const near = chosen.some(
        (s) => s.sourceIndex === c.sourceIndex && Math.abs(s.unit.position - c.unit.position) <= 2,
      );
      const floor = introduced || near ? this.minRelevance / 2 : this.minRelevance;
      if (c.relevance < floor) continue;
      const score = c.score + (introduced ? 0.25 : 0);
      if (score > pickScore) {
        pick = c;
        pickScore = score;
      }
    }
    return pick;
  }

  private score(
    question: string,
    sources: AnswerSource[],
    shape: QuestionShape,
    context: string | undefined,
    unknownWords: string[] = [],
  ): Scored | undefined {
    const candidates: Candidate[] = [];
    const sourceTerms: Array<Set<string>> = [];
    const sourceLower: string[] = [];
    sources.forEach((source, sourceIndex) => {
      const sectionCounts = new Map<string, number>();
      const all = new Set(terms(source.title));
      const units = unitsOf(source);
      // A section's units share its heading: its terms are read once.
      const headings = new Map<string, Set<string>>();
      for (const unit of units) {
        const unitTerms = terms(unit.text);
        let headingTerms = headings.get(unit.heading);
        if (!headingTerms) {
          headingTerms = new Set(terms(`${unit.heading} ${source.title}`));
          headings.set(unit.heading, headingTerms);
        }
        for (const t of unitTerms) all.add(t);
        for (const t of headingTerms) all.add(t);
        // A passage cut from the middle of a section starts in its middle, not at its opening.
        const sectionIndex = sectionCounts.get(unit.heading) ?? (unit.inherited ? MID_SECTION : 0);
        if (unit.kind === 'sentence') sectionCounts.set(unit.heading, sectionIndex + 1);
        candidates.push({
          unit,
          sourceIndex,
          source,
          terms: unitTerms,
          termSet: new Set(unitTerms),
          headingTerms,
          lower: unit.text.toLowerCase(),
          sectionIndex,
          relevance: 0,
          bodyMatched: false,
          ownMatched: false,
          score: 0,
        });
      }
      sourceTerms.push(all);
      sourceLower.push(`${source.title}\n${source.content}`.toLowerCase());
    });
    const frame = FRAME_STEMS[shape.type];
    // "A instead of B" weighs two sides; elsewhere "without X" says what the answer must avoid.
    const { excluded: negated, framing } =
      shape.type === 'comparison'
        ? { excluded: new Set<string>(), framing: new Set<string>() }
        : negation(question);
    // A problem report or a yes/no question uses "without X" for the case it is about ("fields
    // without a timezone fail validation", "is a plugin without tests accepted?"): X is part of
    // what is asked, and only sentences naming X without an alternative rank lower.
    const describes = shape.type === 'troubleshooting' || shape.type === 'yes-no';
    // A word no page of the project uses ("colorized" for what pages call pretty printing) can match
    // no sentence: weighed, it only counted against every passage's coverage of the question.
    const absent = new Set(unknownWords.flatMap((w) => terms(w)));
    const asked = (t: string): boolean =>
      !frame.has(t) && (describes || !negated.has(t)) && !framing.has(t) && !absent.has(t);
    const asks = terms(plainWords(question));
    const queryTerms = [...new Set(asks)].filter(asked);
    const queryIds = identifiers(question);
    if (candidates.length === 0 || (queryTerms.length === 0 && queryIds.length === 0)) return undefined;

    const df = new Map<string, number>();
    for (const c of candidates) for (const t of c.termSet) df.set(t, (df.get(t) ?? 0) + 1);
    const n = candidates.length;
    // BM25's idf: a term the sources never use weighs most, so an off-topic question covers little.
    const idf = (t: string): number => {
      const d = df.get(t) ?? 0;
      return Math.log(1 + (n - d + 0.5) / (d + 0.5));
    };
    // A term the sources never use weighs as much as their rarest one, not the theoretical
    // maximum: one paraphrased word ("colorized") must not make a covered question off-topic.
    let rarest = 0;
    for (const t of queryTerms) if (df.has(t)) rarest = Math.max(rarest, idf(t));
    const weightOf = (t: string): number => (df.has(t) ? idf(t) : Math.max(rarest, 0.5 * idf('')));
    const weights = new Map(queryTerms.map((t) => [t, weightOf(t)]));
    const maxWeight = Math.max(idf(''), ...weights.values());
    const idWeight = 1.5 * maxWeight;
    // When no source mentions any of the products the question names ("deploy to Heroku with a
    // Procfile"), they are what it asks about, as much as a name in code is: weighed like one, an
    // answer about deploying elsewhere falls below the coverage floor instead of being offered
    // for it. One name the sources know ("Express or Connect middleware") keeps the others light.
    const named = properNames(question).filter((t) => weights.has(t));
    if (named.length > 0 && named.every((t) => !df.has(t))) for (const t of named) weights.set(t, idWeight);
    // The conversation's topic keeps sentences on the subject, but below the follow-up's own words.
    // A topic word no source uses is left out: the follow-up may have moved on from it ("validate
    // the body" -> "and how do I reuse a schema?"), and weighed as unknown it counted against
    // every source, so a covered follow-up was answered "not found".
    for (const t of new Set(terms(context ?? ''))) {
      if (asked(t) && !weights.has(t) && df.has(t)) weights.set(t, CONTEXT_SHARE * weightOf(t));
    }
    const total = [...weights.values()].reduce((a, b) => a + b, 0) + idWeight * queryIds.length;
    const bigrams = pairs(asks.filter(asked));
    const lowerAll = sourceLower.join('\n');
    let found = 0;
    for (const [t, w] of weights) if (df.has(t)) found += w;
    for (const id of queryIds) if (containsIdentifier(lowerAll, id)) found += idWeight;
    if (found / total < this.minTopicality) return undefined;

    let coverage = 0;
    sourceTerms.forEach((all, i) => {
      let covered = 0;
      for (const [t, w] of weights) if (all.has(t)) covered += w;
      for (const id of queryIds) if (containsIdentifier(sourceLower[i] ?? '', id)) covered += idWeight;
      coverage = Math.max(coverage, covered / total);
    });

    const manyTerms = queryTerms.length + queryIds.length >= 3;
    // The question's own words; the conversation's topic gets no related words.
    const own = new Set(queryTerms);
    const asksDefault = ASKS_DEFAULT.test(question);
    const asksAmount = ASKS_AMOUNT.test(question);
    const headingFits = new Map<string, number>();
    const partial: Scored = { candidates, weights, ids: queryIds, idWeight, total, coverage: 0 };
    for (const c of candidates) {
      let matched = 0;
      let body = 0;
      let distinct = 0;
      for (const [t, w] of weights) {
        if (c.termSet.has(t)) {
          body += w;
          distinct++;
        } else if (c.headingTerms.has(t)) matched += 0.5 * w;
        else if (own.has(t) && RELATED.get(t)?.some((r) => c.termSet.has(r))) {
          body += RELATED_SHARE * w;
          distinct++;
        }
      }
      for (const id of queryIds) {
        if (containsIdentifier(c.lower, id)) {
          body += idWeight;
          distinct++;
        }
      }
      matched += body;
      c.ownMatched =
        queryTerms.some((t) => c.termSet.has(t)) || queryIds.some((id) => containsIdentifier(c.lower, id));
      const phrase = bigrams.length === 0 ? 0 : countPhrases(c.terms, bigrams) / bigrams.length;
      c.relevance = Math.min(1, (matched / total) * (1 + 0.25 * phrase));
      c.bodyMatched = body > 0;
      const rank = 1 - c.sourceIndex / Math.max(1, sources.length);
      const sourceScore = Math.min(1, Math.max(0, c.source.score));
      // One shared word among several asked about is weak evidence: "difference" alone is not an answer.
      const single = manyTerms && distinct === 1 ? 0.7 : 1;
      // Sections open with what they are about; later sentences are details.
      const position = c.unit.kind === 'sentence' ? 1 + 0.2 / (1 + c.sectionIndex) : 1;
      // A section headed by what was asked (an option's name) is where its answer is.
      const key = `${c.sourceIndex}\u0000${c.unit.heading}`;
      let fit = headingFits.get(key);
      if (fit === undefined) {
        fit = c.unit.heading ? headingFit(partial, c) : 0;
        headingFits.set(key, fit);
      }
      // "Default: `72000`" under the option's heading answers "what is the default …?".
      const defaults = asksDefault && /^default\b/i.test(c.unit.text) && fit >= 0.3 ? 2 : 1;
      // "How long is a major release supported?" is answered by "… for six months …", not by a
      // sentence sharing more of its words ("The release date … can be found at …").
      const amount =
        asksAmount && c.unit.kind === 'sentence' && STATES_AMOUNT.test(c.unit.text) ? AMOUNT_FACTOR : 1;
      c.score =
        c.relevance *
        quality(c.unit) *
        single *
        position *
        (1 + 0.25 * sourceScore + 0.25 * rank) *
        (1 + 0.5 * fit) *
        defaults *
        amount *
        (negated.size > 0 && avoids(c, negated) ? NEGATED_FACTOR : 1);
    }
    return { candidates, weights, ids: queryIds, idWeight, total, coverage };
  }
}

/**
 * The terms of the names a question writes with a capital inside the sentence ("Heroku",
 * "Procfile", "JVM"): products and proper nouns, not the first word or "I", not code.
 */
function properNames(question: string): string[] {
  const prose = question.replace(/`[^`]*`/g, ' ');
  const out: string[] = [];
  for (const m of prose.matchAll(/(?<=[\p{L}\p{N},;:)]\s+)[A-Z][\p{L}\p{N}]*(?![\w$.@/-]*[\w$])/gu)) {
    if (m[0] === 'I' || identifiers(m[0]).length > 0) continue;
    out.push(...terms(m[0]));
  }
  return out;
}

/**
 * Where a sentence of a passage that starts in the middle of its section counts from in
 * `sectionIndex`: past the opening sentences, which say what the section is about.
 */
const MID_SECTION = 2;

/** A unit of a source, and whether its heading comes from the source's heading path. */
type SourceUnit = TextUnit & { inherited?: boolean };

/**
 * The units of a source. A passage cut from the middle of a section (the chunker starts a new
 * chunk when a section outgrows it) does not repeat the section's heading; its first units get
 * the last heading of the source's `headingPath`, so an option's description continued in a
 * second chunk ("Routes without an explicit `handlerTimeout` inherit …") is still under
 * `handlerTimeout`, for labels, section matching and headings that name what was asked.
 */
function unitsOf(source: AnswerSource): SourceUnit[] {
  const units: SourceUnit[] = splitMarkdownUnits(cleanMarkup(source.content));
  const section = source.headingPath?.[source.headingPath.length - 1];
  const heading = section ? cleanInline(section).trim() : '';
  if (!heading) return units;
  for (let i = 0; i < units.length && units[i]?.heading === ''; i++)
    units[i] = { ...(units[i] as TextUnit), heading, inherited: true };
  return units;
}

/**
 * Score factor of a sentence naming what the question excludes ("without listening": a sentence
 * on `fastify.listen()`): it may still be the best there is, but any other comes first.
 */
const NEGATED_FACTOR = 0.4;

/** A sentence weighing an alternative: "over HTTPS (h2) or plaintext (h2c)", "not needed without TLS". */
const ALTERNATIVE = /\b(?:or|without|not|no|unless|instead|otherwise)\b/i;

/** Whether a unit is about what the question excludes, not about what stands in its place. */
function avoids(c: Candidate, negated: Set<string>): boolean {
  return [...negated].some((t) => c.termSet.has(t)) && !ALTERNATIVE.test(c.unit.text);
}

/** Least heading match (0-1) for a how-to answer to quote a section's steps. */
const HOWTO_SECTION_FIT = 0.5;

/** Share of the question's weight that a unit's heading (else the page title) names. */
function headingFit(scored: Scored, c: Candidate): number {
  const heading = c.unit.heading || c.source.title;
  const headingTerms = new Set(terms(heading));
  const lower = heading.toLowerCase();
  let fit = 0;
  for (const [t, w] of scored.weights) if (headingTerms.has(t)) fit += w;
  for (const id of scored.ids) if (containsIdentifier(lower, id)) fit += scored.idWeight;
  return fit / scored.total;
}

/** How a source's title or path names the topic: its own page 1.5, a qualifier of it 0.85, else 1. */
function fitOfName(source: AnswerSource, topicTerms: Set<string>): number {
  const path = (source.link.split(/[?#]/)[0] ?? '').replace(/\/+$/, '');
  const last = (path.split('/').pop() ?? '').replace(/\.\w+$/, '').replace(/[-_]+/g, ' ');
  let fit = 1;
  for (const name of [source.title, last]) {
    const nameTerms = new Set(terms(name));
    if (sameTerms(nameTerms, topicTerms)) return 1.5;
    if (nameTerms.size > topicTerms.size && [...topicTerms].every((t) => nameTerms.has(t))) fit = 0.85;
  }
  return fit;
}

/**
 * Whether a heading's initials spell the topic, an acronym the question uses for it: "Long Term
 * Support" for "LTS", "Command Line Interface" for "CLI".
 */
function spellsTopic(heading: string, topicTerms: Set<string>): boolean {
  if (topicTerms.size !== 1) return false;
  const [topic] = topicTerms;
  if (!topic || topic.length < 2 || topic.length > 6) return false;
  const words = heading.match(/[\p{L}\p{N}]+/gu) ?? [];
  return (
    words.length === topic.length &&
    words
      .map((w) => w[0])
      .join('')
      .toLowerCase() === topic
  );
}

function sameTerms(a: Set<string>, b: Set<string>): boolean {
  return a.size > 0 && a.size === b.size && [...a].every((t) => b.has(t));
}

function namesTopic(c: Candidate, topicTerms: Set<string>, topicIds: string[]): boolean {
  if (topicIds.some((id) => containsIdentifier(c.lower, id))) return true;
  return topicTerms.size > 0 && [...topicTerms].every((t) => c.termSet.has(t));
}

/** Where a subject turns to examples of itself: "tools such as …", "databases like …". */
const EXAMPLES_OF = /\b(?:such\s+as|like|including|e\.g\.?|for\s+example)\b/;

/** Whether a sentence defines the topic: "X is …", "X are …", "X lets you …", "X provides …". */
export function isDefining(sentence: string, topicTerms: Set<string>, topicIds: string[] = []): boolean {
  const plain = sentence.replace(/[`*_]/g, '').toLowerCase();
  // A glossary or list entry: "Request: Details Fastify's request object …", "`ip` - The IP address …".
  const entry = /^([^:;,()]{1,60}?)\s*(?::|\s[-\u2013\u2014])\s+\S/.exec(plain);
  if (entry?.[1]) {
    const named = entry[1].trim();
    if (topicIds.some((id) => named === id) || sameTerms(new Set(terms(named)), topicTerms)) return true;
  }
  // "The second parameter of the handler function is `Reply`": the topic is the whole predicate.
  const inverted = INVERTED.exec(plain);
  if (inverted?.[1] && !NOT_A_SUBJECT.test(inverted[1])) {
    const predicate = terms(inverted[2] ?? '');
    if (predicate.length > 0 && sameTerms(new Set(predicate), topicTerms)) return true;
  }
  const m = DEFINING.exec(plain);
  const subject = m?.[1]?.trim();
  if (!subject || NOT_A_SUBJECT.test(subject)) return false;
  // "Widgets are used across …" describes a use, not what a widget is.
  if (m && PASSIVE.test(plain.slice(m.index + m[0].length - (m[2]?.length ?? 0)))) return false;
  const subjectTerms = terms(subject);
  if (subjectTerms.length > topicTerms.size + 3) return false;
  // "Tools such as k6 or autocannon can be used …" is about tools; the topic is one example.
  const head = subject.split(EXAMPLES_OF)[0] ?? subject;
  if (topicIds.some((id) => containsIdentifier(head, id))) return true;
  const headTerms = terms(head);
  return topicTerms.size > 0 && [...topicTerms].every((t) => headTerms.includes(t));
}

interface SideKeys {
  ids: string[];
  head: string | undefined;
}

/** What names a side of a comparison: its identifiers, else its first content word. */
function sideKeys(side: string): SideKeys {
  const ids = identifiers(side);
  return { ids, head: ids.length > 0 ? undefined : terms(side)[0] };
}

/** The setting a comparison side names with a value after it ("onProtoPoisoning error"), if any. */
function settingOf(side: string): string | undefined {
  const words = side.trim().split(/\s+/);
  if (words.length !== 2) return undefined;
  const [id] = identifiers(words[0] ?? '');
  return id !== undefined && id === (words[0] ?? '').replace(/`/g, '').toLowerCase() ? id : undefined;
}

/** The first sentence, other than its Default line, of the section headed by a name alone. */
function ownSectionOpening(candidates: Candidate[], id: string): Candidate | undefined {
  return candidates.find(
    (c) =>
      c.unit.kind === 'sentence' &&
      !/^default\b/i.test(c.unit.text) &&
      NAME_HEADING.exec(c.unit.heading.trim())?.[1]
        ?.replace(/\(.*\)$/, '')
        .toLowerCase() === id,
  );
}

function names(c: Candidate, side: SideKeys): boolean {
  if (side.ids.some((id) => containsIdentifier(c.lower, id))) return true;
  return side.head !== undefined && c.termSet.has(side.head);
}

/**
 * Answer order: the lead first (when given) with the rest of its source after it, then the other
 * sources by their best sentence; document order inside a source. A code block goes right after
 * the sentence introducing it, else after its source's sentences.
 */
function arrange(chosen: Candidate[], code: Candidate | undefined, lead: Candidate | undefined): Candidate[] {
  const groupRank = new Map<number, number>();
  chosen.forEach((c, i) => {
    if (!groupRank.has(c.sourceIndex)) groupRank.set(c.sourceIndex, i);
  });
  if (lead) groupRank.set(lead.sourceIndex, -1);
  const out = [...chosen];
  if (code) {
    if (!groupRank.has(code.sourceIndex)) groupRank.set(code.sourceIndex, chosen.length);
    out.push(code);
  }
  const order = (c: Candidate): number => {
    if (c === lead) return -1;
    if (c === code && !chosen.some((s) => follows(s, c))) return Number.MAX_SAFE_INTEGER;
    return c.unit.position;
  };
  const rank = (c: Candidate): number => groupRank.get(c.sourceIndex) ?? 0;
  return out.sort((a, b) => rank(a) - rank(b) || order(a) - order(b));
}

/**
 * "What is the default …?": reference pages state an option's default on a line of its own
 * ("Default: `1048576` (1MiB)") that shares few words with the question, so it rarely scores
 * high itself. When a chosen sentence's section has such a line, it follows the first sentence
 * chosen from that section.
 */
function withDefaultLine(chosen: Candidate[], candidates: Candidate[], queryIds: string[]): Candidate[] {
  const out = [...chosen];
  // "What is the default of `requestTimeout`?": the Default line under that name's own heading.
  const named = candidates.find(
    (d) =>
      d.unit.kind === 'sentence' &&
      /^default\b/i.test(d.unit.text) &&
      queryIds.some((id) => NAME_HEADING.exec(d.unit.heading.trim())?.[1]?.toLowerCase() === id),
  );
  if (named) {
    if (out.includes(named)) return out;
    const host = out.findIndex(
      (c) => c.sourceIndex === named.sourceIndex && c.unit.heading === named.unit.heading,
    );
    if (host >= 0) out.splice(host + 1, 0, named);
    else out.unshift(named);
    return out;
  }
  for (const c of chosen) {
    if (c.unit.kind !== 'sentence' || !c.unit.heading) continue;
    const line = candidates.find(
      (d) =>
        d.unit.kind === 'sentence' &&
        d.sourceIndex === c.sourceIndex &&
        d.unit.heading === c.unit.heading &&
        /^default\b/i.test(d.unit.text) &&
        d.unit.text.length <= 120,
    );
    if (!line || out.includes(line)) continue;
    out.splice(out.indexOf(c) + 1, 0, line);
    return out;
  }
  return out;
}

/**
 * "To support other content types, use the `addContentTypeParser` API", "You should use
 * `reply.elapsedTime` instead": what to do, and with what. Migration notes address the reader
 * ("you should / can / must / need to …") where reference pages use the imperative.
 */
const INSTRUCTION =
  /^(?:to\s+\w+[^.]{0,80}?,\s*(?:use|call|set|add|register|pass|install|enable|specify|provide|configure|define)\b|(?:you\s+(?:should|can|must|need\s+to|have\s+to)\s+(?:instead\s+)?)?(?:use|call|set|add|register|pass|install|enable)\s|to\s+(?:make\s+(?:it|this)\s+work|fix\s+(?:it|this)|solve\s+(?:it|this)|avoid\s+(?:it|this)|work\s+around\s+(?:it|this)),)/i;

/** A sentence that says something does not happen or cannot be done. */
const DENIAL = /\b(?:not|never|cannot|can't|doesn't|don't|isn't|aren't|won't|no longer)\b/;

/**
 * A yes-no question is often answered "no" by the sentence right after the description it
 * matched ("… all paths will be matched as lowercase. This option does not affect query
 * strings"), which shares few of the question's words and so ranks below the budget. The first
 * such denial, within two sentences after a chosen one in its section and naming a word of the
 * question, follows that sentence.
 */
function withDenial(chosen: Candidate[], scored: Scored): Candidate[] {
  for (const anchor of chosen) {
    if (anchor.unit.kind !== 'sentence') continue;
    const next = scored.candidates.find(
      (c) =>
        followsWithin(anchor, c, 2) &&
        DENIAL.test(c.lower) &&
        [...scored.weights.keys()].some((t) => c.termSet.has(t)),
    );
    if (next && !chosen.includes(next)) {
      const out = [...chosen];
      out.splice(out.indexOf(anchor) + 1, 0, next);
      return out;
    }
  }
  return chosen;
}

/** The first sentence that reads alone of the section a unit is in, when the section has its own heading. */
function sectionOpening(unit: Candidate, candidates: Candidate[]): Candidate | undefined {
  if (!unit.unit.heading) return undefined;
  return candidates.find(
    (c) =>
      c.unit.kind === 'sentence' &&
      c.sourceIndex === unit.sourceIndex &&
      c.unit.heading === unit.unit.heading &&
      c.sectionIndex === 0 &&
      quality(c.unit) >= 0.6,
  );
}

/** Whether `c` is a sentence of `anchor`'s section at most `distance` units after it. */
function followsWithin(anchor: Candidate, c: Candidate, distance: number): boolean {
  return (
    c.unit.kind === 'sentence' &&
    c.sourceIndex === anchor.sourceIndex &&
    c.unit.heading === anchor.unit.heading &&
    c.unit.position > anchor.unit.position &&
    c.unit.position <= anchor.unit.position + distance
  );
}

/**
 * A pointer to what changes the behaviour just described: "See the `prefixTrailingSlash` route
 * option above to change this behavior.", "This can be disabled with the `X` option". Pages close
 * a section that explains a surprise with it; it is the fix a problem report asks for.
 */
const REMEDY =
  /^(?:see|check|use)\b[^.]{0,80}?\bto\s+(?:change|alter|customi[sz]e|control|configure|disable|enable|override|avoid|turn\s+off)\s+(?:this|that|the|it)\b|\b(?:this|it|that|the\s+\w+)\s+(?:behaviou?r\s+)?(?:can|may)\s+be\s+(?:changed|configured|customi[sz]ed|disabled|enabled|overridden|controlled|turned\s+off)\s+(?:with|by|through|via|using)\b/i;

/** An instruction that names what to write: an API, or anything in inline code (`0.0.0.0`). */
function instructsWithCode(c: Candidate): boolean {
  if (c.unit.kind !== 'sentence') return false;
  const plain = c.unit.text.replace(/[`*_]/g, '');
  if (!INSTRUCTION.test(plain) && !REMEDY.test(plain)) return false;
  return identifiers(c.unit.text).length > 0 || /`[^`\n]+`/.test(c.unit.text);
}

/**
 * How-to and troubleshooting answers need the step, and pages often state it a few sentences
 * after the description that matched the question ("Fastify natively supports JSON and text …
 * To support other content types, use the `addContentTypeParser` API"), in words the question
 * does not use. The first such instruction that names an API, shortly after the first chosen
 * sentence in its section, follows that sentence.
 */
function withInstruction(chosen: Candidate[], candidates: Candidate[]): Candidate[] {
  let lead: Candidate | undefined;
  let step: Candidate | undefined;
  for (const anchor of chosen) {
    if (anchor.unit.kind !== 'sentence') continue;
    // Right before it in its paragraph ("To handle errors inside the route, specify the
    // `attachValidation` option. If there is a validation error, …"), else a few units after it.
    const before = previousInBlock(anchor, candidates);
    step =
      (before && instructsWithCode(before) ? before : undefined) ??
      candidates.find((c) => followsWithin(anchor, c, 4) && instructsWithCode(c));
    if (step) {
      lead = anchor;
      break;
    }
  }
  if (!lead || !step || chosen.includes(step)) return chosen;
  const out = [...chosen];
  const after = out
    .filter((c) => c.sourceIndex === lead.sourceIndex && c.unit.position < step.unit.position)
    .pop();
  out.splice(after ? out.indexOf(after) + 1 : out.indexOf(lead) + 1, 0, step);
  return out;
}

/**
 * A follow-up is searched and scored with the conversation's topic, so the best sentence may say
 * only what the previous answer said ("Register `@fastify/cors` …" for "and how do I restrict it
 * to one origin?"). The answer opens with the first source whose sentences have the follow-up's
 * own words; the others keep their order after it.
 */
function ownWordsFirst(chosen: Candidate[]): Candidate[] {
  const first = chosen.find((c) => c.unit.kind === 'sentence');
  if (!first || first.ownMatched) return chosen;
  const own = chosen.find((c) => c.unit.kind === 'sentence' && c.ownMatched);
  if (!own) return chosen;
  const group = chosen.filter((c) => c.sourceIndex === own.sourceIndex);
  return [...group, ...chosen.filter((c) => c.sourceIndex !== own.sourceIndex)];
}

/**
 * The sentence that says what a name is: the first under a heading that is the name alone
 * (`### \`requestTimeout\``), else a list entry or table row that opens with it ("`ip` - The IP
 * address …", "| `bodyLimit` | …").
 */
function definitionOf(candidates: Candidate[], id: string): Candidate | undefined {
  let entry: Candidate | undefined;
  for (const c of candidates) {
    if (c.unit.kind !== 'sentence' || /^default\b/i.test(c.unit.text)) continue;
    const heading = NAME_HEADING.exec(c.unit.heading.trim())?.[1]
      ?.replace(/\(.*\)$/, '')
      .toLowerCase();
    // The first sentence of the section that reads alone ("Or `async/await`" after a code block does not).
    // `fastify.after()` is documented under its bare name: "#### after".
    const named = heading !== undefined && (heading === id || id.endsWith(`.${heading}`));
    if (named && c.sectionIndex <= 1 && c.unit.text.split(/\s+/).length >= 4) return c;
    const name = ENTRY_NAME.exec(c.unit.text.trim())?.[1]
      ?.replace(/\(.*\)$/, '')
      .replace(/^\./, '')
      .toLowerCase();
    if (!entry && name !== undefined && (name === id || id.endsWith(`.${name}`))) entry = c;
  }
  return entry;
}

/**
 * A name's defining sentence and, when that is a short opening ("Triggered when `fastify.close()`
 * is invoked to stop the server."), the next sentence of its section, which says what sets the
 * name apart: two hooks can open with the same words.
 */
function definedAs(def: Candidate, candidates: Candidate[]): Candidate[] {
  if (def.unit.text.length > SHORT_DEFINITION) return [def];
  const next = candidates.find((c) => followsWithin(def, c, 1) && quality(c.unit) >= 0.6);
  return next ? [def, next] : [def];
}
/** Longest defining sentence that {@link definedAs} continues. */
const SHORT_DEFINITION = 100;

/**
 * Question types where a name the question uses is best introduced first. A definition or an
 * option question has its own lead (ExtractiveAnswerGenerator.define), a comparison its two
 * sides, and troubleshooting opens with the cause, not with what the thing involved is.
 */
const NAME_FIRST = new Set<QuestionShape['type']>(['how-to', 'yes-no', 'other']);

/** The name a list entry or table row opens with: "`query` - …", "| `bodyLimit` | …". */
const ENTRY_NAME = /^(?:\|\s*)?`([^`\n]{1,60})`\s*(?:[-\u2013\u2014:|;]|$)/;

/**
 * A question that names an option, method or flag (`bodyLimit`, `reply.hijack()`, `--inspect`)
 * asks about that thing whatever its type ("how do I use `reply.hijack()`?"), and the reader must
 * see what it is: the sentence defining the first such name that the sources define. A how-to
 * opens with it (`at` 0; moved to the front if chosen elsewhere); a problem report ("request.ips
 * is always undefined") keeps its cause first and, unless already chosen, follows it with the
 * definition (`at` 1), whose condition ("`ips` - … (only when `trustProxy` is enabled)") is often
 * the answer.
 */
function withNamedDefinition(
  chosen: Candidate[],
  candidates: Candidate[],
  ids: string[],
  at: 0 | 1,
): Candidate[] {
  for (const id of ids) {
    const def = definitionOf(candidates, id);
    if (!def) continue;
    if (at === 0 ? chosen[0] === def : chosen.includes(def)) return chosen;
    const rest = chosen.filter((c) => c !== def);
    return [...rest.slice(0, at), def, ...rest.slice(at)];
  }
  return chosen;
}

/** A list entry that opens with its name: "`query` - The parsed querystring", "`ip`: The IP address". */
const NAMED_ENTRY = /^`([^`\n]{1,60})`\s*(?:[-\u2013\u2014:]|$)/;
/** Most entry names quoted after a sentence that introduces a list. */
const MAX_LIST_NAMES = 10;

/**
 * "Request is a core object containing the following fields:" says what the thing holds only
 * through the list after it, which the answer's budget cuts after an entry or two. A chosen
 * sentence ending in ":" followed by named entries ("`query` - …", "`body` - …") carries their
 * names ("…the following fields: `query`, `body`, `params`, …"): the reader sees the whole list
 * at the cost of one line.
 */
function withListNames(chosen: Candidate[], candidates: Candidate[]): Candidate[] {
  return chosen.map((c) => {
    if (c.unit.kind !== 'sentence' || !c.unit.text.endsWith(':')) return c;
    const names: string[] = [];
    let lastBlock = c.unit.block;
    let more = false;
    for (const next of candidates) {
      if (next.sourceIndex !== c.sourceIndex || next.unit.position <= c.unit.position) continue;
      if (next.unit.kind !== 'sentence' || next.unit.heading !== c.unit.heading) break;
      const name = NAMED_ENTRY.exec(next.unit.text)?.[1];
      // A further sentence of the same entry ("Values are percent-decoded …") continues it.
      if (!name) {
        if (next.unit.block === lastBlock && names.length > 0) continue;
        break;
      }
      if (names.length >= MAX_LIST_NAMES) {
        more = true;
        break;
      }
      names.push(`\`${name}\``);
      lastBlock = next.unit.block;
    }
    if (names.length < 2) return c;
    const text = `${c.unit.text} ${names.join(', ')}${more ? ', …' : ''}`;
    return { ...c, unit: { ...c.unit, text } };
  });
}

/**
 * A sentence that opens by pointing back at the one before it: "This may result in …", "It is …",
 * or an instruction about it: "Enable it only when …", "Use them sparingly".
 */
const ANAPHOR =
  /^(?:this|that|these|those|it|they|such|doing so|in (?:this|that|such a) case|[a-z]+\s+(?:it|them)\b)/i;
/** "these four properties", "the above two options": a count of things named earlier. */
const COUNTED_BACK = /\b(?:these|those|the\s+above)\s+(?:two|three|four|five|six|seven|eight|\d+)\s+[a-z]+/i;
/** A list entry's name that is an identifier: `ip`, `.status(code)`, `@acme/cors`. */
const NAME_ENTRY = /^[.A-Za-z_$@][\w$.@/-]*(?:\([^()]*\))?$/;
/** A list entry that opens with a capitalized name and a colon: "Autocannon: An HTTP/1.1 …". */
const GLOSSARY_ENTRY = /^[A-Z][\w.-]{1,40}:\s+\S/;
/** A name that is a value: `true`, `false`, `null`, `undefined`. */
const LITERAL = /^(?:true|false|null|undefined)$/;
/** Most units between a list entry and the sentence introducing its list. */
const MAX_LIST_REACH = 8;

/**
 * What a quoted sentence cannot be read without, when it is not quoted itself: for a sentence
 * opening with "This" / "It" / "Such" …, the sentence before it in its paragraph, which says
 * what "this" is ("… errors from `ajv` are run through the `schemaErrorFormatter` function …" for
 * "This may result in odd error messages …"); for a list entry, the sentence ending in ":" that
 * introduces its list ("Connection draining based on the `forceCloseConnections` option:" for
 * "`"idle"` — idle connections are closed"); for a sentence counting things named earlier ("…
 * emits only these four properties …"), the opening of its section, which names them. The name
 * the reader needs is often in that sentence.
 */
function antecedentOf(c: Candidate, candidates: Candidate[]): Candidate | undefined {
  const at = candidates.indexOf(c);
  const previous = candidates[at - 1];
  // "… emits only these four properties …" counts what an earlier sentence of its section lists.
  if (COUNTED_BACK.test(c.unit.text)) {
    const opening = sectionOpening(c, candidates);
    if (opening && opening !== c && opening.unit.position < c.unit.position) return opening;
  }
  if (!previous || previous.sourceIndex !== c.sourceIndex || previous.unit.heading !== c.unit.heading) return;
  if (previous.unit.block === c.unit.block) {
    return ANAPHOR.test(c.unit.text.replace(/^[`*_]+/, '')) ? previous : undefined;
  }
  // An entry named by an identifier ("`ip` - The IP address …") reads alone; one named by a
  // value ("`"idle"` — …", "`true` — …") is a value of what the introduction names.
  const name = NAMED_ENTRY.exec(c.unit.text)?.[1];
  if (name !== undefined && NAME_ENTRY.test(name) && !LITERAL.test(name)) return undefined;
  // So does a glossary entry named in prose: "Autocannon: An HTTP/1.1 benchmarking tool …".
  if (GLOSSARY_ENTRY.test(c.unit.text)) return undefined;
  // The first unit of its block: an entry of a list when a sentence ending in ":" comes shortly
  // before it, with only sentences (the list's other entries) between.
  for (let i = at - 1; i >= 0 && i >= at - MAX_LIST_REACH; i--) {
    const p = candidates[i] as Candidate;
    if (p.sourceIndex !== c.sourceIndex || p.unit.heading !== c.unit.heading || p.unit.kind !== 'sentence')
      return undefined;
    if (p.unit.text.endsWith(':')) return p;
  }
  return undefined;
}

/**
 * A how-to answer must say what to use. When its first sentence names nothing in code ("Every
 * time a new route is registered, you can read and modify the route options.") and the sentence
 * before it in its paragraph does ("An alternative approach is to make use of the onRoute hook
 * …"), that one opens the answer: it is what the reader writes.
 */
function withNamingLead(chosen: Candidate[], candidates: Candidate[]): Candidate[] {
  const first = chosen[0];
  if (!first || first.unit.kind !== 'sentence' || identifiers(first.unit.text).length > 0) return chosen;
  const previous = previousInBlock(first, candidates);
  if (
    !previous ||
    previous.unit.kind !== 'sentence' ||
    chosen.includes(previous) ||
    identifiers(previous.unit.text).length === 0
  )
    return chosen;
  return [previous, ...chosen];
}

/** The unit right before `c` in its paragraph or list entry (same source and block), if any. */
function previousInBlock(c: Candidate, candidates: Candidate[]): Candidate | undefined {
  const previous = candidates[candidates.indexOf(c) - 1];
  return previous?.sourceIndex === c.sourceIndex && previous.unit.block === c.unit.block
    ? previous
    : undefined;
}

/** Each chosen sentence preceded by what it cannot be read without ({@link antecedentOf}). */
function withAntecedents(chosen: Candidate[], candidates: Candidate[]): Candidate[] {
  const out = [...chosen];
  for (const c of chosen) {
    if (c.unit.kind !== 'sentence') continue;
    const before = antecedentOf(c, candidates);
    if (before && !out.includes(before)) out.splice(out.indexOf(c), 0, before);
  }
  return out;
}

/** How many of the first sources a how-to answer's example may come from. */
const EXAMPLE_SOURCES = 3;
/**
 * A block that shows what came back (an HTTP response, bare JSON data), not code to write: it
 * does not show the reader what to do.
 */
const TRANSCRIPT = /^[`~]{3,}[^\n]*\n\s*(?:HTTP\/\d|[{[])/;
/** A signature with a placeholder body ("// Some code"): it shows a shape, not what to write. */
const SKELETON = /^\s*(?:\/\/|#)\s*(?:some code|your code|\.\.\.|do something)\s*$/im;
/** Least relevance of the code block a how-to or troubleshooting answer adds as its example. */
const EXAMPLE_RELEVANCE = 0.3;

/**
 * Whether the question is about something the documentation never names
 * (AnswerRequest.unknownWords: words no passage of the project has): two such words ("cron",
 * "midnight"; "Raspberry", "Pi"), or one written as a name ("PM2", "NestJS", "LDAP", "Fly" of
 * "Fly.io", a capitalized word inside the sentence). One plain word no page uses is a paraphrase
 * ("colorized", "took"), and a number an example ("415"): neither says the topic is missing.
 */
export function namesWhatDocsLack(question: string, unknownWords: string[]): boolean {
  const words = unknownWords.filter((w) => /\p{L}/u.test(w));
  if (words.length >= 2) return true;
  const [word] = words;
  if (word === undefined) return false;
  const first = /[\p{L}\p{N}]+/u.exec(question)?.[0];
  const capitalized = /^\p{Lu}/u.test(word) && word !== first;
  return capitalized || /\p{Lu}.*\p{Lu}|\p{L}\d|\d\p{L}|\p{Ll}\p{Lu}/u.test(word);
}

/** Most pages listed after {@link NOT_COVERED_ANSWER}. */
const SEE_ALSO_PAGES = 3;

/** {@link NOT_COVERED_ANSWER}, then the closest pages (sources in retrieval order, one per link). */
function notCovered(sources: AnswerSource[]): string[] {
  const seen = new Set<string>();
  const pages: string[] = [];
  for (const s of sources) {
    if (!s.link || seen.has(s.link) || pages.length >= SEE_ALSO_PAGES) continue;
    seen.add(s.link);
    const title = (s.title.trim() || s.link).replace(/[[\]]/g, '');
    pages.push(`[${title}](${s.link})`);
  }
  if (pages.length === 0) return [NOT_COVERED_ANSWER];
  return [NOT_COVERED_ANSWER, `\n\n${SEE_ALSO} ${pages.join(', ')}.`];
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

/** The sentence right before a code block that introduces it (ends in ":"), if any. */
function introOf(code: Candidate, candidates: Candidate[]): Candidate | undefined {
  return candidates.find((c) => c.unit.kind === 'sentence' && c.unit.text.endsWith(':') && follows(c, code));
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
  // A piece cut by a chunk boundary ("request](./Request.md) object, …") does not read alone.
  if (/^[a-z]/.test(unit.text) || unit.text.includes('](')) q *= 0.5;
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
  const named = new Set<string>();
  chosen.forEach((c, i) => {
    const previous = chosen[i - 1];
    const next = chosen[i + 1];
    if (c.unit.kind === 'code') {
      const intro = citedSources.has(c.sourceIndex) ? '' : `Example [${c.source.n}]:\n\n`;
      pieces.push(`${pieces.length > 0 ? '\n\n' : ''}${intro}${c.unit.text}`);
      return;
    }
    if (c.unit.listItem && previous !== undefined && previous.sourceIndex === c.sourceIndex) {
      // An item shown after the sentence announcing its list: a list line, cited by that sentence.
      pieces.push(`${previous.unit.listItem ? '\n' : '\n\n'}- ${c.unit.text}`);
      return;
    }
    const sameParagraph =
      previous !== undefined && previous.unit.kind === 'sentence' && previous.sourceIndex === c.sourceIndex;
    const separator = pieces.length === 0 ? '' : sameParagraph ? ' ' : '\n\n';
    const introducesNext =
      next !== undefined &&
      (next.unit.kind === 'code' || next.unit.listItem === true) &&
      next.sourceIndex === c.sourceIndex &&
      next.unit.position === c.unit.position + 1;
    // The name goes in front once per section: later sentences of that section continue it.
    const section = `${c.sourceIndex}\u0000${c.unit.heading}`;
    let text = c.unit.text;
    // The first sentence quoted from a section says the name, labelled or in its own words
    // ("You can use `ignoreDuplicateSlashes` option …"): the next one continues it unlabelled.
    if (!named.has(section)) {
      text = labelled(c);
      named.add(section);
    }
    pieces.push(separator + cite(text, c.source.n, introducesNext));
  });
  return pieces;
}

/** A heading that is only a name: `` `exposeHeadRoutes` ``, `reply.code(statusCode)`, `setNotFoundHandler`. */
const NAME_HEADING = /^`?([A-Za-z_$@][\w$.@/-]*(?:\([^()]*\))?)`?$/;

/**
 * An option's or method's description often leaves out its name, which only its heading says
 * ("Automatically creates a sibling HEAD route …" under `exposeHeadRoutes`): quoted alone, it
 * would not tell the reader what to set. The first sentence quoted from such a section gets the
 * name in front, as reference pages list them ("`exposeHeadRoutes`: Automatically creates …"),
 * wherever it stands in the section: a later one ("If not, `ready` will complete with an error")
 * needs the name as much.
 */
function labelled(c: Candidate): string {
  const text = c.unit.text;
  const m = NAME_HEADING.exec(c.unit.heading.trim());
  const name = m?.[1] ?? proseHeadingName(c);
  // A one-word heading in prose ("Usage", "Example") is a title, not a name.
  if (!name || !(/`/.test(c.unit.heading) || /[a-z][A-Z]|\.\w|\(/.test(name))) return text;
  const id = name.replace(/\(.*\)$/, '').toLowerCase();
  if (containsIdentifier(c.lower, id)) return text;
  return `\`${name}\`: ${text}`;
}

/**
 * The one API a prose heading is about ("Add `reply.trailers` methods"), for a sentence under it
 * that names no code ("Fastify now supports the HTTP Trailer response headers"): quoted alone,
 * it would not say what to call. A heading naming two or none, or a sentence with code of its
 * own, gets no label.
 */
function proseHeadingName(c: Candidate): string | undefined {
  if (/`/.test(c.unit.text)) return undefined;
  const names = [...c.unit.heading.matchAll(/`([A-Za-z_$][\w$]*\.[A-Za-z_$][\w$.]*(?:\([^()]*\))?)`/g)];
  return names.length === 1 ? names[0]?.[1] : undefined;
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
