import type { ChunkDraft, LoadedDocument } from '@kbqa/core';
import { withContentHash } from './embedding-text';
import { parseMarkdown, type MarkdownBlock } from '@kbqa/text';

/** Summary length used when `summarize.maxChars` is not given. */
export const DEFAULT_SUMMARY_MAX_CHARS = 600;

/**
 * The `kind: 'summary'` chunk of a document for a summary made elsewhere (an LLM summarizer in
 * the ingestion pipeline, say); `undefined` when the summary is blank, since chunks are never
 * empty. Heading path is empty, link is the document's.
 */
export function summaryChunk(
  doc: LoadedDocument,
  summaryText: string,
  ordinal: number,
): ChunkDraft | undefined {
  const content = summaryText.trim();
  if (!content) return undefined;
  return withContentHash({
    ordinal,
    content,
    headingPath: [],
    title: documentTitle(doc),
    link: doc.link ?? doc.source,
    kind: 'summary',
  });
}

/** `doc.title`, else the document's first H1, else its source. */
export function documentTitle(doc: LoadedDocument, blocks?: readonly MarkdownBlock[]): string {
  const title = doc.title?.trim();
  if (title) return title;
  if (!doc.parts?.length) {
    for (const block of blocks ?? parseMarkdown(doc.content)) {
      if (block.kind === 'heading' && block.level === 1 && block.title) return block.title;
    }
  }
  return doc.source;
}
