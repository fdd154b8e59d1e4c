import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import * as sqliteVec from 'sqlite-vec';
import type BetterSqlite3 from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { openDataSource } from '../data-source';
import { ConversationChannel1735400000000 } from './1735400000000-conversation-channel';
import { MIGRATIONS } from './index';

describe('migration to conversation channels', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kbqa-channel-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives existing conversations the channel analytics inferred: platform thread, else key kind', async () => {
    const file = join(dir, 'kbqa.sqlite');
    const before = new DataSource({
      type: 'better-sqlite3',
      database: file,
      migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(ConversationChannel1735400000000)),
      prepareDatabase: (db: BetterSqlite3.Database) => sqliteVec.load(db),
    });
    await before.initialize();
    await before.runMigrations();
    const now = '2026-11-01T00:00:00.000000';
    await before.query("INSERT INTO projects (id, name, created_at) VALUES (1, 'p', ?)", [now]);
    const conversations: Array<[number, string]> = [
      [1, 'server'],
      [2, 'anon'],
      [3, 'server'],
      [4, 'server'],
    ];
    for (const [id, by] of conversations) {
      await before.query(
        'INSERT INTO conversations (id, project_id, started_by, created_at) VALUES (?, 1, ?, ?)',
        [id, by, now],
      );
    }
    for (const [platform, id] of [
      ['slack', 3],
      ['discord', 4],
    ] as const) {
      await before.query(
        `INSERT INTO integration_threads (project_id, platform, thread_key, conversation_id, created_at)
         VALUES (1, ?, ?, ?, ?)`,
        [platform, `thread-${id}`, id, now],
      );
    }
    await before.destroy();

    const after = await openDataSource({ file });
    try {
      const rows = await after.query<Array<{ id: number; channel: string }>>(
        'SELECT id, channel FROM conversations ORDER BY id',
      );
      expect(rows.map((r) => r.channel)).toEqual(['api', 'widget', 'slack', 'discord']);
    } finally {
      await after.destroy();
    }
  });
});
