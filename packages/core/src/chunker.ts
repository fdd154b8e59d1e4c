import type { ChunkDraft, LoadedDocument } from './documents';

/** Sizes are counted in characters of chunk text. */
export interface ChunkerOptions {
  /** Size a chunk aims for. */
  targetSize: number;
  /** Hard ceiling: a block larger than this is split even if it is a code block or list. */
  maxSize: number;
  /** Characters of the previous chunk repeated at the start of the next one (same section only). */
  overlap: number;
}

export const DEFAULT_CHUNKER_OPTIONS: Readonly<ChunkerOptions> = {
  targetSize: 1000,
  maxSize: 2000,
  overlap: 100,
};

/** Turns a document into chunks that keep their heading path, title and link. */
export interface Chunker {
  chunk(document: LoadedDocument): ChunkDraft[];
}

/**
 * The exact text that gets embedded for a chunk, and whose sha256 is its `contentHash`: title,
 * heading path and content on their own lines. The chunker hashes it and the store hands it to
 * the embedder, so an unchanged hash always means an unchanged embedding input.
 */
export function embeddingText(chunk: Pick<ChunkDraft, 'title' | 'headingPath' | 'content'>): string {
  return `${chunk.title}\n${chunk.headingPath.join(' > ')}\n${chunk.content}`;
}
