/** A page of the repository's docs corpus (`fixtures/docs-corpus`), e.g. `reference/hooks.md`. */
export declare function readDoc(file: string): string;
/** The section of a corpus file from the heading with `title` up to the next heading of the same or a higher level. */
export declare function section(file: string, title: string): string;
