import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import * as sqliteVec from 'sqlite-vec';
import type BetterSqlite3 from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { openDataSource } from '../data-source';
import { ConversationEntity } from '../entities';
import { SqliteRequestRecords } from '../request-records';
import { ConversationStarter1734600000000 } from './1734600000000-conversation-starter';
import { MIGRATIONS } from './index';

describe('migration to conversation starters', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kbqa-starter-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("counts existing conversations as the server key's and stores the starter of new ones", async () => {
    const file = join(dir, 'kbqa.sqlite');
    const before = new DataSource({
      type: 'better-sqlite3',
      database: file,
      migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(ConversationStarter1734600000000)),
      prepareDatabase: (db: BetterSqlite3.Database) => sqliteVec.load(db),
    });
    await before.initialize();
    await before.runMigrations();
    const now = '2026-11-01T00:00:00.000000';
    await before.query("INSERT INTO projects (id, name, created_at) VALUES (1, 'p', ?)", [now]);
    await before.query('INSERT INTO conversations (id, project_id, created_at) VALUES (7, 1, ?)', [now]);
    await before.destroy();

    const after = await openDataSource({ file });
    try {
      const records = new SqliteRequestRecords(
        (after.driver as unknown as { databaseConnection: BetterSqlite3.Database }).databaseConnection,
      );
      const anon = records.createConversation(1, null, 'anon');
      const server = records.createConversation(1, null);
      const started = records.startConversation(
        1,
        null,
        { sender: 'Human', text: 'q', replyTo: null, sources: [], complete: true },
        'anon',
      ).conversationId;
      const repo = after.getRepository(ConversationEntity);
      const starters = await Promise.all(
        [7, anon, server, started].map(async (id) => (await repo.findOneByOrFail({ id })).startedBy),
      );
      expect(starters).toEqual(['server', 'anon', 'server', 'anon']);
    } finally {
      await after.destroy();
    }
  });
});
