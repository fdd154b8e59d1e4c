import type { MigrationInterface, QueryRunner } from 'typeorm';
import { splitProseAndCode } from '../fts-document';
import { rebuildChunksFts } from './fts-rebuild';

/**
 * Adds a `project` column to `chunks_fts` holding the project's token (`p<id>`), so a lexical
 * query is scoped to its project inside FTS5 instead of by a join per match.
 */
export class FtsProjectColumn1733200000000 implements MigrationInterface {
  name = 'FtsProjectColumn1733200000000';

  up(q: QueryRunner): Promise<void> {
    rebuildChunksFts(q, ['project', 'title', 'headings', 'content', 'code'], (r) => {
      const body = splitProseAndCode(r.content);
      return [`p${r.project_id}`, r.title, r.headings, body.prose, body.code];
    });
    return Promise.resolve();
  }

  down(q: QueryRunner): Promise<void> {
    rebuildChunksFts(q, ['title', 'headings', 'content', 'code'], (r) => {
      const body = splitProseAndCode(r.content);
      return [r.title, r.headings, body.prose, body.code];
    });
    return Promise.resolve();
  }
}
