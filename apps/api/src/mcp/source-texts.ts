import { Inject, Injectable } from '@nestjs/common';
import type { SourceKind, SourceListing } from '@kbqa/core';
import { SOURCE_LISTING } from '../database/tasks.providers';

/** A source of a project as the MCP resource list shows it. */
export interface SourceEntry {
  id: number;
  source: string;
  kind: SourceKind;
}

/** The stored text of one source. */
export interface SourceText {
  source: string;
  text: string;
}

/**
 * Read-only queries for the MCP resources. The chunk store has no method that returns a source's
 * text, and it belongs to another team's package, so they go through the source listing.
 */
@Injectable()
export class SourceTexts {
  constructor(@Inject(SOURCE_LISTING) private readonly sources: SourceListing) {}

  async list(projectId: number): Promise<SourceEntry[]> {
    return (await this.sources.entries(projectId)).map(({ id, source, kind }) => ({ id, source, kind }));
  }

  /**
   * The source's chunks joined in order, document by document; undefined when the source does
   * not exist or belongs to another project (the same answer for both). Only chunks are stored,
   * not the documents' text, so the chunker's overlap repeats a sentence here and there.
   */
  async read(projectId: number, sourceId: number): Promise<SourceText | undefined> {
    const found = await this.sources.chunkTexts(projectId, sourceId);
    return found && { source: found.source, text: found.texts.join('\n\n') };
  }
}
