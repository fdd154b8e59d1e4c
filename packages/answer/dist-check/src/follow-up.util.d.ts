import type { HistoryTurn } from '@kbqa/core';
/** Whether a question reads as a short follow-up that leans on the previous turn. */
export declare function isFollowUp(question: string): boolean;
/**
 * The extractive (model-free) question condenser, deterministic:
 * - no history, or a question that is not a short follow-up (more than 8 words, or neither a
 *   pronoun such as "it/its/this/they" nor a leading "and/what about/how about/also"): the question as is;
 * - otherwise up to 6 key terms of the last history turn's prompt (code identifiers first, then
 *   content words, in order, skipping words the question already has) are prepended:
 *   "what about its options?" after "How do I use fastify.register?" becomes
 *   "fastify.register: what about its options?". When the last prompt has no key terms, the one before it is used.
 */
export declare function condenseFollowUp(question: string, history: HistoryTurn[]): string;
