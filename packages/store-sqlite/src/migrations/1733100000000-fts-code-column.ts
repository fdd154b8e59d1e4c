import type { MigrationInterface, QueryRunner } from 'typeorm';
import { splitProseAndCode } from '../fts-document';
import { rebuildChunksFts } from './fts-rebuild';

/**
 * Rebuilds `chunks_fts` with fenced code in a column of its own (weighted below prose). The
 * table is contentless, so it is refilled from `chunks`, which holds every chunk's text.
 */
export class FtsCodeColumn1733100000000 implements MigrationInterface {
  name = 'FtsCodeColumn1733100000000';

  up(q: QueryRunner): Promise<void> {
    rebuildChunksFts(q, ['title', 'headings', 'content', 'code'], (r) => {
      const body = splitProseAndCode(r.content);
      return [r.title, r.headings, body.prose, body.code];
    });
    return Promise.resolve();
  }

  down(q: QueryRunner): Promise<void> {
    rebuildChunksFts(q, ['title', 'headings', 'content'], (r) => [r.title, r.headings, r.content]);
    return Promise.resolve();
  }
}
