import type { ChunkDraft, LoadedDocument } from '@kbqa/core';

export const CHUNKER = Symbol('CHUNKER');

/**
 * Writes the summary chunk of `options.summarize` with a language model. Provided only when an
 * LLM is configured (null otherwise: the chunker's extractive summary is used).
 */
export interface Summarizer {
  summaryChunk(
    document: LoadedDocument,
    ordinal: number,
    signal: AbortSignal,
  ): Promise<ChunkDraft | undefined>;
}

export const SUMMARIZER = Symbol('SUMMARIZER');
