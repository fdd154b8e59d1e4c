import { embeddingText, sha256Hex, type ChunkDraft } from '@kbqa/core';

export { embeddingText };

/** A draft with its `contentHash` filled in from {@link embeddingText}. */
export function withContentHash(draft: Omit<ChunkDraft, 'contentHash'>): ChunkDraft {
  return { ...draft, contentHash: sha256Hex(embeddingText(draft)) };
}
