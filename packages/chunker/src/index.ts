/**
 * @kbqa/chunker: markdown- and heading-aware chunking (see README.md for the rules and defaults).
 *
 * - `MarkdownChunker` implements the `Chunker` contract of @kbqa/core.
 * - `embeddingText(chunk)` is the exact text that is embedded and hashed into `contentHash`.
 * - `summaryChunk(doc, text, ordinal)` builds the `kind: 'summary'` chunk for a summary made by an
 *   async summarizer; the chunker's own summary is `extractiveSummary` from @kbqa/text.
 */
export { MarkdownChunker } from './markdown.chunker';
export { embeddingText } from './embedding-text';
export { DEFAULT_SUMMARY_MAX_CHARS, documentTitle, summaryChunk } from './summary';
