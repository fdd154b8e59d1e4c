/**
 * @kbqa/text: the text rules every package shares, so that the chunker, the answer generators
 * and the search index agree on them.
 *
 * - Stop words: `STOP_WORDS` (one source list) and its subset `QUERY_STOP_WORDS` for search
 *   queries, `isStopWord(word)`.
 * - Sentences: `sentenceStarts(text)` (cut points), `sentenceSlices(text)` (lossless pieces),
 *   `splitSentences(text)` (trimmed sentences).
 * - Markdown: `parseMarkdown(markdown)` (the one block parser: headings, paragraphs, quotes, tables,
 *   lists, code) and its line tests (`fenceOpen`, `isFenceClose`, `indentWidth`),
 *   `splitMarkdownUnits(markdown)` (sentences and code blocks under their headings), `cleanInline(text)`.
 * - Markup that is not prose (admonition markers, directives, HTML comments): `cleanMarkup(markdown)`.
 * - Callout boxes of docs generators, stripped before chunking, their text kept: `stripCallouts(markdown)`,
 *   `calloutTitle(title)` ('' for a title that only names the callout's kind).
 * - Summaries: `extractiveSummary(markdown, maxChars)`.
 * - Words used for the same thing ("log" / "logger"): `wordVariants(word)`, `variantHead(word)`.
 * - Citations of an answer renumbered by page: `citeAnswer`, `citedMarkdown` (also
 *   `@kbqa/text/citations`); the text fragments of their links: `fragmentHref` and its parts (also
 *   `@kbqa/text/text-fragment`).
 */
export { STOP_WORDS, QUERY_STOP_WORDS, isStopWord } from './stop-words';
export { sentenceStarts, sentenceSlices, splitSentences } from './sentences';
export {
  fenceOpen,
  indentWidth,
  isFenceClose,
  parseMarkdown,
  type BlockKind,
  type Fence,
  type MarkdownBlock,
} from './markdown-blocks';
export { cleanInline, splitMarkdownUnits, type TextUnit } from './markdown-units';
export { cleanMarkup } from './markup';
export { calloutTitle, stripCallouts } from './callouts';
export { extractiveSummary } from './summary';
export { WORD_VARIANT_GROUPS, variantHead, wordVariants } from './word-variants';
export {
  citeAnswer,
  citedMarkdown,
  webAddress,
  type CitableSource,
  type CitedAnswer,
  type CitedMarkdownOptions,
  type CitedPage,
  type Citation,
  type CiteOptions,
} from './citations';
export {
  citedSentence,
  encodeDirectiveText,
  fragmentHref,
  plainText,
  textDirective,
  withTextDirective,
} from './text-fragment';
