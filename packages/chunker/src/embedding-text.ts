import { sha256Hex, type ChunkDraft } from '@kbqa/core';

/**
 * The exact text that gets embedded for a chunk, and whose sha256 is its `contentHash`: title,
 * heading path and content on their own lines. The store and embedder call this too, so the
 * hash always matches what was embedded.
 */
export function embeddingText(chunk: Pick<ChunkDraft, 'title' | 'headingPath' | 'content'>): string {
  return `${chunk.title}\n${chunk.headingPath.join(' > ')}\n${chunk.content}`;
}

/** A draft with its `contentHash` filled in from {@link embeddingText}. */
export function withContentHash(draft: Omit<ChunkDraft, 'contentHash'>): ChunkDraft {
  return { ...draft, contentHash: sha256Hex(embeddingText(draft)) };
}
