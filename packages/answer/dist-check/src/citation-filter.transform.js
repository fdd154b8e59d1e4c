"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CitationFilter = void 0;
exports.filterCitations = filterCitations;
const MARKER = /^\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]/;
// What may still grow into a marker once the next delta arrives: "[", "[1", "[1, 2", "[1,".
const MARKER_PREFIX = /^\[(?:\d{1,4}(?:\s*,\s*\d{0,4})*)?\s*$/;
/**
 * Removes citation markers that name a source the answer was not given (`[7]` when only
 * [1]-[3] exist), from a text that arrives in pieces. `[1, 7]` keeps `[1]`. A marker split
 * across pieces ("… [" + "7] …") is held back until it is complete, as is a run of trailing
 * spaces (so that a dropped marker does not leave "text ."). Text inside inline code and
 * fenced code blocks is passed through untouched (`items[5]` is code, not a citation).
 */
class CitationFilter {
    allowed;
    pending = '';
    inFence = false;
    inlineTicks = 0;
    lineHasText = false;
    constructor(allowed) {
        this.allowed = new Set(allowed);
    }
    /** Takes the next piece; returns the text that is safe to emit now. */
    push(delta) {
        const text = this.pending + delta;
        this.pending = '';
        let out = '';
        let i = 0;
        while (i < text.length) {
            const ch = text[i];
            if (ch === '`') {
                let run = 1;
                while (text[i + run] === '`')
                    run++;
                if (i + run === text.length) {
                    // The run may continue in the next piece; its length decides fence vs inline code.
                    this.pending = text.slice(i);
                    return out;
                }
                this.onBackticks(run);
                out += text.slice(i, i + run);
                i += run;
                continue;
            }
            if (ch === '[' && !this.inFence && this.inlineTicks === 0) {
                const rest = text.slice(i);
                const marker = MARKER.exec(rest);
                if (marker) {
                    out = this.appendMarker(out, marker[1] ?? '');
                    this.lineHasText = true;
                    i += marker[0].length;
                    continue;
                }
                if (MARKER_PREFIX.test(rest)) {
                    const spaces = / +$/.exec(out);
                    this.pending = (spaces?.[0] ?? '') + rest;
                    return spaces ? out.slice(0, spaces.index) : out;
                }
            }
            if (ch === '\n')
                this.lineHasText = false;
            else if (ch !== ' ' && ch !== '\t')
                this.lineHasText = true;
            out += ch;
            i++;
        }
        if (!this.inFence && this.inlineTicks === 0) {
            const spaces = / +$/.exec(out);
            if (spaces) {
                this.pending = spaces[0];
                out = out.slice(0, spaces.index);
            }
        }
        return out;
    }
    /** End of the stream: whatever was held back, as is (an unfinished "[12" is just text). */
    flush() {
        const rest = this.pending;
        this.pending = '';
        return rest;
    }
    appendMarker(out, list) {
        const numbers = list.split(',').map((n) => Number(n.trim()));
        const kept = numbers.filter((n) => this.allowed.has(n));
        if (kept.length === numbers.length)
            return `${out}[${list}]`;
        if (kept.length > 0)
            return `${out}[${kept.join(', ')}]`;
        return out.endsWith(' ') ? out.slice(0, -1) : out;
    }
    onBackticks(run) {
        if (this.inFence) {
            if (run >= 3 && !this.lineHasText)
                this.inFence = false;
        }
        else if (this.inlineTicks > 0) {
            if (run === this.inlineTicks)
                this.inlineTicks = 0;
        }
        else if (run >= 3 && !this.lineHasText) {
            this.inFence = true;
        }
        else {
            this.inlineTicks = run;
        }
        this.lineHasText = true;
    }
}
exports.CitationFilter = CitationFilter;
/** Streaming form of {@link CitationFilter}: the same text with unknown citation markers removed. */
async function* filterCitations(pieces, allowed) {
    const filter = new CitationFilter(allowed);
    for await (const piece of pieces) {
        const out = filter.push(piece);
        if (out)
            yield out;
    }
    const rest = filter.flush();
    if (rest)
        yield rest;
}
//# sourceMappingURL=citation-filter.transform.js.map