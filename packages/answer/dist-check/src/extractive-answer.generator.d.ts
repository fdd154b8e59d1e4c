import type { AnswerGenerator, AnswerRequest, AnswerSource, HistoryTurn } from '@kbqa/core';
/** What the extractive generator answers when the sources do not cover the question. */
export declare const NOT_COVERED_ANSWER = "I couldn't find this in the documentation.";
/** Opens the list of closest pages that follows {@link NOT_COVERED_ANSWER} when there are sources. */
export declare const SEE_ALSO = "You may want to read:";
/**
 * Default floor of the best passage's query-term coverage (0-1): the share of the question's
 * weighted content terms and identifiers that the best source (its text, title and headings)
 * contains. Below it no passage is about the question and the answer is
 * {@link NOT_COVERED_ANSWER} plus the closest pages. It measures the passages, not the
 * retriever's relevance score, so recalibrating that score does not move it.
 */
export declare const MIN_PASSAGE_COVERAGE = 0.5;
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
    /** Floor of the best passage's query-term coverage (default {@link MIN_PASSAGE_COVERAGE}). */
    minCoverage?: number;
}
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
export declare class ExtractiveAnswerGenerator implements AnswerGenerator {
    readonly id = "extractive";
    private readonly maxSentences;
    private readonly maxChars;
    private readonly maxCodeChars;
    private readonly minRelevance;
    private readonly minTopicality;
    private readonly minCoverage;
    constructor(options?: ExtractiveAnswerGeneratorOptions);
    generate(request: AnswerRequest): AsyncGenerator<string, void, undefined>;
    /**
     * Keeps the question, except for a short follow-up leaning on the previous turn ("what about
     * its options?", "and in v5?"): then key terms of the last history prompt are prepended.
     * See {@link condenseFollowUp}. Never throws, like the OpenAI generator's (nothing to abort here).
     */
    condenseQuestion(question: string, history: HistoryTurn[], _signal: AbortSignal): Promise<string>;
    /** Extractive summary: best sentences by in-document term frequency and position, in document order. */
    summarize(text: string, maxChars: number, signal: AbortSignal): Promise<string>;
    /**
     * The answer as the pieces that are streamed. A curated source (a taught answer, always first)
     * is the answer: its text as the operator wrote it, cited, and nothing picked from other pages
     * after it, which could only dilute or contradict it.
     */
    compose(question: string, sources: AnswerSource[]): string[];
    /** Sentences by score, without near duplicates, within the sentence and character budgets. */
    private fill;
    private usable;
    /** The general rule: best sentences, grouped by source (best source first), in document order. */
    private relevant;
    /**
     * Definition and option questions: the topic's own page and section over pages where the topic
     * only qualifies something else ("microservices X"), and a defining sentence first.
     */
    private define;
    /** How-to questions: the section whose heading matches, in document order, with its first code block. */
    private steps;
    /** Comparisons: sentences naming both sides first, then the best about each side. */
    private compare;
    private pickCode;
    private score;
}
/** Whether a sentence defines the topic: "X is …", "X are …", "X lets you …", "X provides …". */
export declare function isDefining(sentence: string, topicTerms: Set<string>, topicIds?: string[]): boolean;
/** Puts ` [n]` before the sentence's final punctuation ("Sets the status code [1]."), adding a full stop when there is none. */
export declare function cite(sentence: string, n: number, introducesCode?: boolean): string;
