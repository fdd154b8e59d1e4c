"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const citation_filter_transform_1 = require("./citation-filter.transform");
function run(pieces, allowed) {
    const filter = new citation_filter_transform_1.CitationFilter(allowed);
    return pieces.map((p) => filter.push(p)).join('') + filter.flush();
}
async function* from(pieces) {
    for (const piece of pieces) {
        await Promise.resolve();
        yield piece;
    }
}
describe(citation_filter_transform_1.CitationFilter.name, () => {
    it('keeps markers of given sources and drops the others', () => {
        expect(run(['Use hooks [1]. Or plugins [7]. Both [2][9].'], [1, 2])).toBe('Use hooks [1]. Or plugins. Both [2].');
    });
    it('resolves a marker split across pieces', () => {
        expect(run(['Use hooks [', '1', ']. Or plugins [', '1', '2', ']. End.'], [1])).toBe('Use hooks [1]. Or plugins. End.');
        expect(run(['Also ', '[', '7] this.'], [1])).toBe('Also this.');
    });
    it('gives the same text however the stream is split', () => {
        const text = 'Call `reply.send()` [1] then [3, 1] or [4]. Array `a[4]` stays.\n```js\nx[4] = [9]\n```\nDone [2].';
        const expected = 'Call `reply.send()` [1] then [1] or. Array `a[4]` stays.\n```js\nx[4] = [9]\n```\nDone [2].';
        expect(run([text], [1, 2])).toBe(expected);
        for (let size = 1; size <= 7; size++) {
            const pieces = text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
            expect(run(pieces, [1, 2])).toBe(expected);
        }
    });
    it('releases text that only looked like the start of a marker', () => {
        expect(run(['a [', 'b] c [12'], [1])).toBe('a [b] c [12');
    });
});
describe(citation_filter_transform_1.filterCitations.name, () => {
    it('filters a stream of pieces', async () => {
        const out = [];
        for await (const piece of (0, citation_filter_transform_1.filterCitations)(from(['See [', '5]', ' and [1', '].']), [1]))
            out.push(piece);
        expect(out.join('')).toBe('See and [1].');
    });
});
//# sourceMappingURL=citation-filter.transform.spec.js.map