"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.contentTerms = contentTerms;
exports.jaccard = jaccard;
exports.termOverlap = termOverlap;
/**
 * Similarity of short texts (questions) by their content words: lowercased, stop words of
 * @kbqa/text removed, lightly stemmed ({@link terms}), so "How do I reset my password?" and
 * "resetting passwords" have the same words {reset, password}.
 */
const terms_util_1 = require("./terms.util");
/** The distinct content words of a text. */
function contentTerms(text) {
    return new Set((0, terms_util_1.terms)(text));
}
function shared(a, b) {
    let n = 0;
    for (const t of a)
        if (b.has(t))
            n++;
    return n;
}
/** |A ∩ B| / |A ∪ B|; 0 when both are empty. */
function jaccard(a, b) {
    const common = shared(a, b);
    const union = a.size + b.size - common;
    return union === 0 ? 0 : common / union;
}
/**
 * |A ∩ B| / max(|A|, |B|): the share of the longer text's content words that the other has too.
 * Stricter than Dice on a short question against a long one: "password?" against "reset password"
 * is 0.5, and so is "reset password for admin accounts".
 */
function termOverlap(a, b) {
    const longest = Math.max(a.size, b.size);
    return longest === 0 ? 0 : shared(a, b) / longest;
}
//# sourceMappingURL=similarity.util.js.map