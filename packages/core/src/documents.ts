import type { PageVersion } from './loader';

/** A value a document's metadata may hold; the `where` filter of chat compares against these. */
export type MetadataValue = string | number | boolean;

/** Document metadata as sent to `ingestDocuments` (flat key-value pairs). */
export type DocumentMetadata = Record<string, MetadataValue>;

/**
 * A piece of a document that carries its own link, such as a transcript passage that links to
 * its moment in a video. A chunk made of several parts takes the link of its first part.
 */
export interface DocumentPart {
  text: string;
  link: string;
}

/**
 * One document as a loader yields it, before chunking. `content` is markdown (or plain text,
 * which is valid markdown); headings, lists, tables and fenced code blocks guide the chunker.
 */
export interface LoadedDocument {
  /**
   * The data-source string this document belongs to: page URL, file link, video URL or the
   * caller's label. Re-ingesting a source replaces all its documents.
   */
  source: string;
  /** Document text as markdown. Ignored when `parts` is given. */
  content: string;
  /** Human title (page title, file name, video title). */
  title?: string;
  /** Link a citation should take a reader to; defaults to `source`. */
  link?: string;
  /** Caller metadata kept for the `where` filter. */
  metadata?: DocumentMetadata;
  /** Pre-segmented text with per-part links (transcripts); replaces `content` for chunking. */
  parts?: DocumentPart[];
  /** Add an extractive summary of the document as an extra chunk. */
  summarize?: { maxChars?: number };
  /** What a later sync compares against (HTTP validators, lastmod, blob id, links). */
  version?: PageVersion;
}

/** A chunk as the chunker produces it, ready for indexing. */
export interface ChunkDraft {
  /** Position of the chunk within its document, from 0. */
  ordinal: number;
  /** Chunk text (markdown). */
  content: string;
  /** Headings above the chunk, outermost first (without `#` marks). */
  headingPath: string[];
  /** Title of the document the chunk comes from. */
  title: string;
  /** Link for citations: document link, or the link of the chunk's first part. */
  link: string;
  /** `summary` for the extra chunk of `options.summarize`. */
  kind: 'content' | 'summary';
  /** sha256 (hex) of the text that gets embedded, so unchanged chunks are not embedded again. */
  contentHash: string;
}

/** A stored chunk: a draft plus its identity in the store. */
export interface Chunk extends ChunkDraft {
  id: number;
  projectId: number;
  sourceId: number;
  documentId: number;
}
