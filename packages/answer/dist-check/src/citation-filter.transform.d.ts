/**
 * Removes citation markers that name a source the answer was not given (`[7]` when only
 * [1]-[3] exist), from a text that arrives in pieces. `[1, 7]` keeps `[1]`. A marker split
 * across pieces ("… [" + "7] …") is held back until it is complete, as is a run of trailing
 * spaces (so that a dropped marker does not leave "text ."). Text inside inline code and
 * fenced code blocks is passed through untouched (`items[5]` is code, not a citation).
 */
export declare class CitationFilter {
    private readonly allowed;
    private pending;
    private inFence;
    private inlineTicks;
    private lineHasText;
    constructor(allowed: Iterable<number>);
    /** Takes the next piece; returns the text that is safe to emit now. */
    push(delta: string): string;
    /** End of the stream: whatever was held back, as is (an unfinished "[12" is just text). */
    flush(): string;
    private appendMarker;
    private onBackticks;
}
/** Streaming form of {@link CitationFilter}: the same text with unknown citation markers removed. */
export declare function filterCitations(pieces: AsyncIterable<string>, allowed: Iterable<number>): AsyncGenerator<string, void, undefined>;
