import { summaryChunk } from '@kbqa/chunker';
import type { AnswerGenerator, ChunkDraft, LoadedDocument } from '@kbqa/core';
import type { Summarizer } from './ingestion.tokens';

const DEFAULT_SUMMARY_CHARS = 600;

/** `options.summarize` with the configured language model instead of the extractive summary. */
export class LlmSummarizer implements Summarizer {
  constructor(private readonly generator: AnswerGenerator) {}

  async summaryChunk(
    document: LoadedDocument,
    ordinal: number,
    signal: AbortSignal,
  ): Promise<ChunkDraft | undefined> {
    const text = document.parts ? document.parts.map((p) => p.text).join('\n') : document.content;
    if (!text.trim()) return undefined;
    const summary = await this.generator.summarize(
      text,
      document.summarize?.maxChars ?? DEFAULT_SUMMARY_CHARS,
      signal,
    );
    return summary.trim() ? summaryChunk(document, summary.trim(), ordinal) : undefined;
  }
}
