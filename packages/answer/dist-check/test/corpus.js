"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.readDoc = readDoc;
exports.section = section;
const testing_1 = require("@kbqa/core/testing");
/** A page of the repository's docs corpus (`fixtures/docs-corpus`), e.g. `reference/hooks.md`. */
function readDoc(file) {
    return (0, testing_1.readDocsCorpusFile)(file);
}
/** The section of a corpus file from the heading with `title` up to the next heading of the same or a higher level. */
function section(file, title) {
    const lines = readDoc(file).split('\n');
    const start = lines.findIndex((l) => /^#{1,6}\s/.test(l) && l.replace(/^#+\s*/, '').trim() === title);
    if (start < 0)
        throw new Error(`no heading "${title}" in ${file}`);
    const level = /^#+/.exec(lines[start] ?? '')?.[0].length ?? 1;
    let end = start + 1;
    let inFence = false;
    for (; end < lines.length; end++) {
        const line = lines[end] ?? '';
        if (/^\s*(```|~~~)/.test(line))
            inFence = !inFence;
        const m = /^(#+)\s/.exec(line);
        if (!inFence && m && (m[1]?.length ?? 0) <= level)
            break;
    }
    return lines.slice(start, end).join('\n');
}
//# sourceMappingURL=corpus.js.map