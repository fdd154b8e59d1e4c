"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.isFollowUp = isFollowUp;
exports.condenseFollowUp = condenseFollowUp;
const text_1 = require("@kbqa/text");
const terms_util_1 = require("./terms.util");
const MAX_FOLLOW_UP_WORDS = 8;
const MAX_KEY_TERMS = 6;
const PRONOUN = /\b(?:it|its|it's|this|that|these|those|they|them|their|there|one|ones|same|above|former|latter|he|she)\b/i;
const FOLLOW_UP_LEAD = /^\s*(?:and|or|but|also|what about|how about|what of|same for|then|in|for)\b/i;
/** Whether a question reads as a short follow-up that leans on the previous turn. */
function isFollowUp(question) {
    const words = question.split(/\s+/).filter((w) => w !== '');
    if (words.length === 0 || words.length > MAX_FOLLOW_UP_WORDS)
        return false;
    return PRONOUN.test(question) || FOLLOW_UP_LEAD.test(question);
}
/**
 * The extractive (model-free) question condenser, deterministic:
 * - no history, or a question that is not a short follow-up (more than 8 words, or neither a
 *   pronoun such as "it/its/this/they" nor a leading "and/what about/how about/also"): the question as is;
 * - otherwise up to 6 key terms of the last history turn's prompt (code identifiers first, then
 *   content words, in order, skipping words the question already has) are prepended:
 *   "what about its options?" after "How do I use fastify.register?" becomes
 *   "fastify.register: what about its options?". When the last prompt has no key terms, the one before it is used.
 */
function condenseFollowUp(question, history) {
    const trimmed = question.trim();
    if (history.length === 0 || !isFollowUp(trimmed))
        return trimmed;
    const known = new Set((0, terms_util_1.terms)(trimmed));
    for (let i = history.length - 1; i >= 0 && i >= history.length - 2; i--) {
        const key = keyTerms(history[i]?.prompt ?? '', known);
        if (key.length > 0)
            return `${key.join(' ')}: ${trimmed}`;
    }
    return trimmed;
}
function keyTerms(prompt, known) {
    const out = [];
    const covered = new Set(known);
    for (const id of (0, terms_util_1.identifiers)(prompt)) {
        const idTerms = (0, terms_util_1.terms)(id);
        if (idTerms.length > 0 && idTerms.every((t) => covered.has(t)))
            continue;
        // Keep the identifier as the user wrote it.
        const original = new RegExp(escapeRegExp(id), 'i').exec(prompt)?.[0] ?? id;
        out.push(original.replace(/^`|`$/g, ''));
        for (const t of idTerms)
            covered.add(t);
    }
    for (const match of prompt.matchAll(/[\p{L}\p{N}_$-]+/gu)) {
        const word = match[0];
        if ((0, text_1.isStopWord)(word) || word.length < 2)
            continue;
        const s = (0, terms_util_1.stem)(word.toLowerCase());
        if (covered.has(s))
            continue;
        covered.add(s);
        out.push(word);
    }
    return out.slice(0, MAX_KEY_TERMS);
}
function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
//# sourceMappingURL=follow-up.util.js.map