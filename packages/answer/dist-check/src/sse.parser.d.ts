/**
 * Incremental Server-Sent Events parser (the subset chat completion streams use): feeds on
 * decoded text as it arrives, however the bytes were split, and returns the `data` of each
 * completed event. Handles LF, CRLF and CR line ends (also split between pieces), multi-line
 * data, comments (": keep-alive") and fields other than data (ignored).
 */
export declare class SseParser {
    private buffer;
    private data;
    push(text: string): string[];
    /** The stream ended: the last event, when it was not terminated by a blank line. */
    end(): string[];
    private line;
}
