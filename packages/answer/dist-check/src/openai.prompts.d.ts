import type { AnswerRequest, HistoryTurn } from '@kbqa/core';
/** One message of an OpenAI-compatible chat completion request. */
export interface ChatMessage {
    role: 'system' | 'user' | 'assistant';
    content: string;
}
/** Used when the project has no system prompt of its own. */
export declare const DEFAULT_SYSTEM_PROMPT: string;
/**
 * The chat messages of an answer. One system message (some chat templates accept only one,
 * and only first) holds: the project's system prompt or {@link DEFAULT_SYSTEM_PROMPT}; the
 * sources as `[n] title — link` followed by their content, with the citation rule repeated so
 * that it holds under a custom system prompt too; then the additional context, marked as not
 * citable. A curated source (a taught answer, first when present) is marked as the operator's
 * curated answer to the question, to be answered with first. Earlier turns follow as user/assistant messages (the last `maxHistoryTurns`), then
 * the question as the last user message.
 */
export declare function buildAnswerMessages(request: Pick<AnswerRequest, 'question' | 'sources' | 'history' | 'additionalContext' | 'systemPrompt'>, maxHistoryTurns?: number): ChatMessage[];
/** A non-streamed request that turns a follow-up into a standalone question. */
export declare function buildCondenseMessages(question: string, history: HistoryTurn[], maxTurns?: number): ChatMessage[];
/** Cleans a model's rewrite; the original question when the reply is unusable. */
export declare function parseCondensed(reply: string, original: string): string;
/** A non-streamed request for a summary of about `maxChars` characters. */
export declare function buildSummarizeMessages(text: string, maxChars: number): ChatMessage[];
