"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const similarity_util_1 = require("./similarity.util");
describe('contentTerms', () => {
    it('keeps stemmed content words only', () => {
        expect((0, similarity_util_1.contentTerms)('How do I reset my password?')).toEqual(new Set(['reset', 'password']));
        expect((0, similarity_util_1.contentTerms)('Resetting passwords')).toEqual(new Set(['reset', 'password']));
        expect((0, similarity_util_1.contentTerms)('how do I?')).toEqual(new Set());
    });
});
describe('termOverlap', () => {
    const overlap = (a, b) => (0, similarity_util_1.termOverlap)((0, similarity_util_1.contentTerms)(a), (0, similarity_util_1.contentTerms)(b));
    it('is 1 for the same question in other words', () => {
        expect(overlap('How do I reset my password?', 'password reset')).toBe(1);
    });
    it('is the share of the longer question that the other shares', () => {
        expect(overlap('How do I reset my password?', 'reset the password for admin accounts')).toBe(0.5);
        expect(overlap('How do I reset my password?', 'can I reset a forgotten password')).toBeCloseTo(2 / 3);
        expect(overlap('How do I reset my password?', 'password')).toBe(0.5);
    });
    it('is 0 with nothing in common or nothing to compare', () => {
        expect(overlap('reset password', 'install plugins')).toBe(0);
        expect(overlap('how?', 'what?')).toBe(0);
    });
});
describe('jaccard', () => {
    it('is the shared words over all words', () => {
        expect((0, similarity_util_1.jaccard)(new Set(['a', 'b']), new Set(['b', 'c']))).toBeCloseTo(1 / 3);
        expect((0, similarity_util_1.jaccard)(new Set(['a']), new Set(['a']))).toBe(1);
        expect((0, similarity_util_1.jaccard)(new Set(), new Set())).toBe(0);
    });
});
//# sourceMappingURL=similarity.util.spec.js.map