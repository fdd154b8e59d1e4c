import type BetterSqlite3 from 'better-sqlite3';
import type { QueryRunner } from 'typeorm';

/** The stored fields of a chunk an FTS row is built from. */
export interface FtsSourceRow {
  id: number;
  project_id: number;
  title: string;
  /** The heading path joined with ` > `, as the index stores it. */
  headings: string;
  content: string;
}

/**
 * Replaces `chunks_fts` by a table with `columns`, refilled from `chunks` (the FTS table is
 * contentless, so `chunks` holds the only copy of the text). Runs on the migration's own
 * connection and transaction, through prepared statements: about 3 s per 100k chunks.
 * Shared by FTS migrations; a change here must keep every migration that uses it correct. The new
 * table starts with FTS5's default settings (automerge on): set them again after a rebuild.
 */
export function rebuildChunksFts(
  q: QueryRunner,
  columns: readonly string[],
  values: (row: FtsSourceRow) => unknown[],
): void {
  const db = (q.connection.driver as unknown as { databaseConnection: BetterSqlite3.Database })
    .databaseConnection;
  db.exec(`CREATE VIRTUAL TABLE chunks_fts_next USING fts5(
    ${columns.join(', ')},
    content='', contentless_delete=1,
    tokenize='porter unicode61 remove_diacritics 2')`);
  const insert = db.prepare(
    `INSERT INTO chunks_fts_next (rowid, ${columns.join(', ')}) VALUES (?, ${columns.map(() => '?').join(', ')})`,
  );
  // Pages, not one iterator: better-sqlite3 cannot write while an iterator is open.
  const batch = 2000;
  let after = 0;
  const page = db.prepare<[number, number], Omit<FtsSourceRow, 'headings'> & { heading_path: string }>(
    'SELECT id, project_id, title, heading_path, content FROM chunks WHERE id > ? ORDER BY id LIMIT ?',
  );
  for (;;) {
    const chunk = page.all(after, batch);
    if (chunk.length === 0) break;
    for (const r of chunk) {
      const headings = (JSON.parse(r.heading_path) as string[]).join(' > ');
      insert.run(r.id, ...values({ ...r, headings }));
      after = r.id;
    }
  }
  db.exec('DROP TABLE chunks_fts');
  db.exec('ALTER TABLE chunks_fts_next RENAME TO chunks_fts');
}
