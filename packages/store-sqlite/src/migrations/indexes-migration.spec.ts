import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import * as sqliteVec from 'sqlite-vec';
import type BetterSqlite3 from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { openDataSource } from '../data-source';
import { Indexes1733600000000 } from './1733600000000-indexes';
import { MIGRATIONS } from './index';

describe('migration to indexes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kbqa-migrate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('turns stored tasks and loader sources into indexes, and leaves raw documents without one', async () => {
    const file = join(dir, 'kbqa.sqlite');
    const before = new DataSource({
      type: 'better-sqlite3',
      database: file,
      // Every migration before the one under test (later ones may follow it in the list).
      migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(Indexes1733600000000)),
      prepareDatabase: (db: BetterSqlite3.Database) => sqliteVec.load(db),
    });
    await before.initialize();
    await before.runMigrations();
    const now = '2026-11-01T00:00:00.000000';
    await before.query("INSERT INTO projects (id, name, created_at) VALUES (1, 'p', ?)", [now]);
    const task = (id: number, kind: string, payload: string) =>
      before.query(
        `INSERT INTO ingestion_tasks (id, project_id, kind, status, payload, created_at, updated_at, finished_at)
         VALUES (?, 1, ?, 'completed', ?, ?, ?, ?)`,
        [id, kind, payload, now, now, now],
      );
    await task(11, 'website-crawler', JSON.stringify({ url: 'https://docs.example.com/guide#top' }));
    await task(12, 'sitemap', '{}');
    await task(13, 'documents', '{}');
    const source = (id: number, kind: string, s: string) =>
      before.query(
        'INSERT INTO sources (id, project_id, source, kind, date_added, updated_at) VALUES (?, 1, ?, ?, ?, ?)',
        [id, s, kind, now, now],
      );
    await source(1, 'website-crawler', 'https://docs.example.com/guide/a');
    await source(2, 'github', 'https://github.com/acme/docs/blob/main/README.md');
    await source(3, 'github', 'https://github.com/acme/docs/blob/main/guide/setup.md');
    await source(4, 'documents', 'notes');
    await source(5, 'url', 'https://blog.example.com/post');
    await source(6, 'github', 'https://github.com/acme/other/blob/main/README.md');
    await before.destroy();

    const after = await openDataSource({ file });
    try {
      const indexes = await after.query<
        Array<{ id: number; type: string; url: string; last_task_id: number | null }>
      >('SELECT id, type, url, last_task_id FROM indexes ORDER BY id');
      expect(indexes.map((i) => [i.type, i.url, i.last_task_id])).toEqual([
        ['website-crawler', 'https://docs.example.com/guide', 11],
        ['github', 'https://github.com/acme/docs', null],
        ['url', 'https://blog.example.com/post', null],
        ['github', 'https://github.com/acme/other', null],
      ]);
      const sources = await after.query<Array<{ id: number; index_id: number | null }>>(
        'SELECT id, index_id FROM sources ORDER BY id',
      );
      const byUrl = new Map(indexes.map((i) => [i.url, i.id]));
      expect(sources).toEqual([
        { id: 1, index_id: byUrl.get('https://docs.example.com/guide') },
        { id: 2, index_id: byUrl.get('https://github.com/acme/docs') },
        { id: 3, index_id: byUrl.get('https://github.com/acme/docs') },
        { id: 4, index_id: null },
        { id: 5, index_id: byUrl.get('https://blog.example.com/post') },
        { id: 6, index_id: byUrl.get('https://github.com/acme/other') },
      ]);
      const tasks = await after.query<Array<{ id: number; index_id: number | null }>>(
        'SELECT id, index_id FROM ingestion_tasks ORDER BY id',
      );
      expect(tasks).toEqual([
        { id: 11, index_id: byUrl.get('https://docs.example.com/guide') },
        { id: 12, index_id: null },
        { id: 13, index_id: null },
      ]);
    } finally {
      await after.destroy();
    }
  });
});
