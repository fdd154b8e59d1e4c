import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import * as sqliteVec from 'sqlite-vec';
import type BetterSqlite3 from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { openDataSource } from '../data-source';
import { IngestionTaskEntity, TaskLeaseEntity } from '../entities';
import { TaskLeases1734800000000 } from './1734800000000-task-leases';
import { MIGRATIONS } from './index';

describe('migration to task leases', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kbqa-leases-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the tasks a process left running, with no lease, and stores leases apart from them', async () => {
    const file = join(dir, 'kbqa.sqlite');
    const before = new DataSource({
      type: 'better-sqlite3',
      database: file,
      migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(TaskLeases1734800000000)),
      prepareDatabase: (db: BetterSqlite3.Database) => sqliteVec.load(db),
    });
    await before.initialize();
    await before.runMigrations();
    const now = '2026-11-01T00:00:00.000000';
    await before.query("INSERT INTO projects (id, name, created_at) VALUES (1, 'p', ?)", [now]);
    await before.query(
      `INSERT INTO ingestion_tasks (id, project_id, kind, status, payload, attempts, created_at, updated_at)
       VALUES (5, 1, 'documents', 'running', '{}', 1, ?, ?)`,
      [now, now],
    );
    await before.destroy();

    const after = await openDataSource({ file });
    try {
      expect(await after.getRepository(IngestionTaskEntity).findOneByOrFail({ id: 5 })).toMatchObject({
        status: 'running',
        attempts: 1,
      });
      const leases = after.getRepository(TaskLeaseEntity);
      expect(await leases.count()).toBe(0);
      await leases.insert({ taskId: 5, projectId: 1, owner: 'host:1:ab', until: now });
      expect(await leases.findOneByOrFail({ taskId: 5 })).toEqual({
        taskId: 5,
        projectId: 1,
        owner: 'host:1:ab',
        until: now,
      });
    } finally {
      await after.destroy();
    }
  });
});
