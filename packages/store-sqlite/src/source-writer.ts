import type BetterSqlite3 from 'better-sqlite3';
import type { PageVersion, ReplaceSourceInput, ReplaceSourceResult } from '@kbqa/core';
import { nowTimestamp, sha256Hex } from '@kbqa/core';
import { ftsInserter } from './fts-document';
import { FtsTotals } from './fts-totals';
import type { SqliteVectorIndex } from './vector-index';
import { writeTransaction } from './write-transaction';

/**
 * The writes of a chunk index: sources with their documents, chunks, FTS5 entries and vectors,
 * always changed together in one transaction, and the FTS5 segment merging writers run between
 * writes.
 */
export class SqliteSourceWriter {
  private readonly stmt: ReturnType<SqliteSourceWriter['prepare']>;
  private readonly ftsTotals: FtsTotals;

  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly vectors: SqliteVectorIndex,
  ) {
    this.stmt = this.prepare();
    this.ftsTotals = new FtsTotals(db);
  }

  private prepare() {
    const db = this.db;
    return {
      findSource: db.prepare<[number, string], { id: number }>(
        'SELECT id FROM sources WHERE project_id = ? AND source = ?',
      ),
      // Only on a miss of findSource (a rare path), so no index on link is kept for it.
      findSourceByLink: db.prepare<[number, string], { id: number }>(
        'SELECT source_id AS id FROM chunks WHERE project_id = ? AND link = ? LIMIT 1',
      ),
      insertSource: db.prepare(
        `INSERT INTO sources (project_id, source, kind, date_added, updated_at, index_id, version, content_hash)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      touchSource: db.prepare(
        'UPDATE sources SET kind = ?, updated_at = ?, index_id = ?, version = ?, content_hash = ? WHERE id = ?',
      ),
      keepSource: db.prepare('UPDATE sources SET index_id = ?, version = coalesce(?, version) WHERE id = ?'),
      sourceOfProject: db.prepare<[number, number], { id: number }>(
        'SELECT id FROM sources WHERE id = ? AND project_id = ?',
      ),
      deleteFtsOfSource: db.prepare(
        'DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE source_id = ?)',
      ),
      ftsSizesOfSource: db.prepare<[number], { sz: Buffer }>(
        'SELECT d.sz FROM chunks_fts_docsize d JOIN chunks c ON c.id = d.id WHERE c.source_id = ?',
      ),
      deleteChunksOfSource: db.prepare('DELETE FROM chunks WHERE source_id = ?'),
      deleteDocumentsOfSource: db.prepare('DELETE FROM documents WHERE source_id = ?'),
      deleteSourceRow: db.prepare('DELETE FROM sources WHERE id = ?'),
      insertDocument: db.prepare(
        `INSERT INTO documents (project_id, source_id, title, link, metadata, content_hash, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertChunk: db.prepare(
        `INSERT INTO chunks (project_id, source_id, document_id, ordinal, kind, title, heading_path, link, content, content_hash)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertFts: ftsInserter(db),
      mergeStep: db.prepare<[number]>(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES('merge', ?)`),
      sourcesExcept: db.prepare<[number, string], { id: number }>(
        'SELECT id FROM sources WHERE project_id = ? AND kind <> ?',
      ),
    };
  }

  /**
   * Replaces everything a source holds with the given documents, in one transaction, so a
   * re-run of an interrupted task never leaves duplicate chunks behind.
   */
  replaceSource(input: ReplaceSourceInput): ReplaceSourceResult {
    return writeTransaction(this.db, (): ReplaceSourceResult => {
      const now = nowTimestamp();
      const existing = this.stmt.findSource.get(input.projectId, input.source);
      const version = input.version ? JSON.stringify(input.version) : null;
      const hash = input.contentHash ?? null;
      let sourceId: number;
      // Vectors of chunks whose embedded text is unchanged are carried over, not re-embedded.
      let carried = new Map<string, Buffer>();
      if (existing) {
        sourceId = existing.id;
        carried = this.vectors.vectorsBySourceHash(sourceId);
        this.clearSource(sourceId);
        this.stmt.touchSource.run(input.kind, now, input.indexId ?? null, version, hash, sourceId);
      } else {
        sourceId = Number(
          this.stmt.insertSource.run(
            input.projectId,
            input.source,
            input.kind,
            now,
            now,
            input.indexId ?? null,
            version,
            hash,
          ).lastInsertRowid,
        );
      }
      const chunkIds: number[] = [];
      for (const { document, chunks } of input.documents) {
        const text = document.parts ? document.parts.map((p) => p.text).join('\n') : document.content;
        const documentId = Number(
          this.stmt.insertDocument.run(
            input.projectId,
            sourceId,
            document.title ?? chunks[0]?.title ?? input.source,
            document.link ?? input.source,
            JSON.stringify(document.metadata ?? {}),
            sha256Hex(text),
            now,
          ).lastInsertRowid,
        );
        for (const chunk of chunks) {
          const headings = chunk.headingPath.join(' > ');
          const chunkId = Number(
            this.stmt.insertChunk.run(
              input.projectId,
              sourceId,
              documentId,
              chunk.ordinal,
              chunk.kind,
              chunk.title,
              JSON.stringify(chunk.headingPath),
              chunk.link,
              chunk.content,
              chunk.contentHash,
            ).lastInsertRowid,
          );
          this.stmt.insertFts.run(chunkId, input.projectId, chunk.title, headings, chunk.content);
          const vector = carried.get(chunk.contentHash);
          if (vector) this.vectors.restore(chunkId, input.projectId, vector);
          chunkIds.push(chunkId);
        }
      }
      return { sourceId, chunkIds };
    });
  }

  /**
   * Does up to `pages` pages of FTS5 segment merging. Automatic merging is off (it ran inside
   * write transactions and sometimes stalled them), so writers call this between writes: a
   * step is short, and enough steps keep the number of segments, and so query cost, down.
   */
  mergeStep(pages = 100): void {
    this.stmt.mergeStep.run(pages);
  }

  /** {@link ChunkStore.maintain}: one merge step, and the vector change log pruned. */
  maintain(): void {
    this.mergeStep(100);
    this.vectors.pruneChanges();
  }

  /**
   * Replaces several sources in one transaction: FTS5 flushes a segment per commit, so one
   * commit per source would leave many small segments to merge. Each source is still replaced
   * whole, so a crash mid-task never leaves half a source or a duplicate.
   */
  replaceSources(inputs: ReplaceSourceInput[]): ReplaceSourceResult[] {
    return writeTransaction(this.db, () => inputs.map((input) => this.replaceSource(input)));
  }

  /**
   * Removes one source with its documents, chunks and index rows; returns how many sources went.
   * `source` may also be a link that chat cited from it (a video moment, a heading anchor): the
   * link names its source, so a reader can delete what an answer cited.
   */
  deleteSource(projectId: number, source: string): number {
    return writeTransaction(this.db, () => {
      const row =
        this.stmt.findSource.get(projectId, source) ?? this.stmt.findSourceByLink.get(projectId, source);
      if (!row) return 0;
      this.clearSource(row.id);
      this.stmt.deleteSourceRow.run(row.id);
      return 1;
    });
  }

  /** Removes every source of a project except those added by the teaching feature. */
  deleteAllSources(projectId: number): number {
    return writeTransaction(this.db, () => {
      const rows = this.stmt.sourcesExcept.all(projectId, 'teach');
      for (const row of rows) {
        this.clearSource(row.id);
        this.stmt.deleteSourceRow.run(row.id);
      }
      return rows.length;
    });
  }

  keepSource(sourceId: number, indexId: number, version: PageVersion | undefined): void {
    writeTransaction(this.db, () => {
      this.stmt.keepSource.run(indexId, version ? JSON.stringify(version) : null, sourceId);
    });
  }

  deleteSourcesById(projectId: number, sourceIds: number[]): number {
    return writeTransaction(this.db, () => {
      let removed = 0;
      for (const id of sourceIds) {
        if (!this.stmt.sourceOfProject.get(id, projectId)) continue;
        this.clearSource(id);
        this.stmt.deleteSourceRow.run(id);
        removed += 1;
      }
      return removed;
    });
  }

  private clearSource(sourceId: number): void {
    this.vectors.deleteOfSource(sourceId);
    this.ftsTotals.deleteRows(
      () => this.stmt.ftsSizesOfSource.all(sourceId),
      () => this.stmt.deleteFtsOfSource.run(sourceId),
    );
    this.stmt.deleteChunksOfSource.run(sourceId);
    this.stmt.deleteDocumentsOfSource.run(sourceId);
  }
}
