import type { MigrationInterface, QueryRunner } from 'typeorm';
import { splitProseAndCode } from '../fts-document';

const BATCH = 1000;

interface ChunkRow {
  id: number;
  title: string;
  heading_path: string;
  content: string;
}

/**
 * Rebuilds `chunks_fts` with fenced code in a column of its own (weighted below prose). The
 * table is contentless, so it is refilled from `chunks`, which holds every chunk's text.
 */
export class FtsCodeColumn1733100000000 implements MigrationInterface {
  name = 'FtsCodeColumn1733100000000';

  async up(q: QueryRunner): Promise<void> {
    await rebuild(q, 'title, headings, content, code', (r) => {
      const body = splitProseAndCode(r.content);
      return [body.prose, body.code];
    });
  }

  async down(q: QueryRunner): Promise<void> {
    await rebuild(q, 'title, headings, content', (r) => [r.content]);
  }
}

async function rebuild(q: QueryRunner, columns: string, body: (row: ChunkRow) => string[]): Promise<void> {
  await q.query(`CREATE VIRTUAL TABLE chunks_fts_next USING fts5(
    ${columns},
    content='', contentless_delete=1,
    tokenize='porter unicode61 remove_diacritics 2')`);
  const placeholders = columns
    .split(',')
    .map(() => '?')
    .join(', ');
  const insert = `INSERT INTO chunks_fts_next (rowid, ${columns}) VALUES (?, ${placeholders})`;
  for (let after = 0; ;) {
    const rows = (await q.query(
      'SELECT id, title, heading_path, content FROM chunks WHERE id > ? ORDER BY id LIMIT ?',
      [after, BATCH],
    )) as ChunkRow[];
    if (rows.length === 0) break;
    for (const r of rows) {
      const headings = (JSON.parse(r.heading_path) as string[]).join(' > ');
      await q.query(insert, [r.id, r.title, headings, ...body(r)]);
      after = r.id;
    }
  }
  await q.query('DROP TABLE chunks_fts');
  await q.query('ALTER TABLE chunks_fts_next RENAME TO chunks_fts');
}
