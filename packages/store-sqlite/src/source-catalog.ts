import type BetterSqlite3 from 'better-sqlite3';
import type { IndexedSource, PageVersion, SourceKind, SourceRecord } from '@kbqa/core';
import { withUtcOffset } from '@kbqa/core';
import { textMatch } from './fts-document';

/** What a chunk index holds, read without ranking: its sources, their counts, the words it lacks. */
export class SqliteSourceCatalog {
  private readonly stmt: ReturnType<SqliteSourceCatalog['prepare']>;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    return {
      indexSources: db.prepare<
        [number, number],
        { id: number; source: string; content_hash: string | null; version: string | null }
      >(
        'SELECT id, source, content_hash, version FROM sources WHERE project_id = ? AND index_id = ? ORDER BY id',
      ),
      countIndexSources: db.prepare<[number], { index_id: number; n: number }>(
        'SELECT index_id, count(*) AS n FROM sources WHERE project_id = ? AND index_id IS NOT NULL GROUP BY index_id',
      ),
      listSources: db.prepare<[number], { id: number; source: string; kind: SourceKind; date_added: string }>(
        'SELECT id, source, kind, date_added FROM sources WHERE project_id = ? ORDER BY id',
      ),
      countChunks: db.prepare<[number], { n: number }>(
        'SELECT count(*) AS n FROM chunks WHERE project_id = ?',
      ),
      // Unscoped MATCH, the project checked per row: intersecting with the project token's posting
      // list (every chunk of the project) would read all of it for a common word.
      anyMatch: db.prepare<[string, number], { one: number }>(
        `SELECT 1 AS one FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
         WHERE chunks_fts MATCH ? AND c.project_id = ? LIMIT 1`,
      ),
    };
  }

  listSources(projectId: number): SourceRecord[] {
    return this.stmt.listSources.all(projectId).map((r) => ({
      id: r.id,
      source: r.source,
      kind: r.kind,
      dateAdded: withUtcOffset(r.date_added),
    }));
  }

  indexSources(projectId: number, indexId: number): IndexedSource[] {
    return this.stmt.indexSources.all(projectId, indexId).map((r) => ({
      id: r.id,
      source: r.source,
      contentHash: r.content_hash,
      version: r.version ? (JSON.parse(r.version) as PageVersion) : {},
    }));
  }

  countIndexSources(projectId: number): Map<number, number> {
    return new Map(this.stmt.countIndexSources.all(projectId).map((r) => [r.index_id, r.n]));
  }

  countChunks(projectId: number): number {
    return this.stmt.countChunks.get(projectId)?.n ?? 0;
  }

  /**
   * One FTS5 lookup per word, stopped at the first chunk of the project: immediate for a word no
   * chunk has and for a common one (its first posting is usually the project's); a word only
   * other projects use walks its own postings.
   */
  absentWords(projectId: number, words: string[]): string[] {
    return words.filter((word) => {
      const term = word
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, ' ')
        .trim();
      if (!term) return false;
      return this.stmt.anyMatch.get(textMatch(`"${term}"`), projectId) === undefined;
    });
  }
}
