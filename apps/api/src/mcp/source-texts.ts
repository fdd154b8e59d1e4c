import { Inject, Injectable } from '@nestjs/common';
import type { SourceKind } from '@kbqa/core';
import type { DataSource } from 'typeorm';
import { DATA_SOURCE } from '../database/database.module';
import { runSql } from '../database/sql';

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
 * text, and it belongs to another team's package, so the tables are read directly here.
 */
@Injectable()
export class SourceTexts {
  constructor(@Inject(DATA_SOURCE) private readonly dataSource: DataSource) {}

  list(projectId: number): Promise<SourceEntry[]> {
    return runSql<SourceEntry[]>(
      this.dataSource,
      'SELECT id, source, kind FROM sources WHERE project_id = ? ORDER BY id',
      [projectId],
    );
  }

  /**
   * The source's chunks joined in order, document by document; undefined when the source does
   * not exist or belongs to another project (the same answer for both). Only chunks are stored,
   * not the documents' text, so the chunker's overlap repeats a sentence here and there.
   */
  async read(projectId: number, sourceId: number): Promise<SourceText | undefined> {
    const [row] = await runSql<Array<{ source: string }>>(
      this.dataSource,
      'SELECT source FROM sources WHERE id = ? AND project_id = ?',
      [sourceId, projectId],
    );
    if (!row) return undefined;
    const chunks = await runSql<Array<{ content: string }>>(
      this.dataSource,
      'SELECT content FROM chunks WHERE source_id = ? AND project_id = ? ORDER BY document_id, ordinal',
      [sourceId, projectId],
    );
    return { source: row.source, text: chunks.map((c) => c.content).join('\n\n') };
  }
}
