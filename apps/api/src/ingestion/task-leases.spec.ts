import 'reflect-metadata';
import { hostname } from 'node:os';
import { type TaskUpdate, timestampAt } from '@kbqa/core';
import {
  openDataSource,
  rawDatabase,
  SqliteTaskLeaseRepository,
  SqliteTaskRepository,
} from '@kbqa/store-sqlite';
import type BetterSqlite3 from 'better-sqlite3';
import type { DataSource } from 'typeorm';
import { TaskLeases } from './task-leases';

describe(TaskLeases.name, () => {
  let ds: DataSource;
  let db: BetterSqlite3.Database;
  let leases: () => TaskLeases;
  let shortLeases: () => TaskLeases;

  beforeEach(async () => {
    ds = await openDataSource({ file: ':memory:' });
    db = rawDatabase(ds);
    db.prepare("INSERT INTO projects (name, created_at) VALUES ('p', 'now'), ('q', 'now')").run();
    const repository = new SqliteTaskLeaseRepository(db);
    leases = () => new TaskLeases(repository, 30_000);
    shortLeases = () => new TaskLeases(repository, 300);
  });
  afterEach(() => ds.destroy());

  const add = async (projectId: number) => {
    const id = await new SqliteTaskRepository(db).create({
      projectId,
      kind: 'documents',
      payload: '{}',
      total: 0,
      indexId: null,
    });
    return { id, projectId };
  };
  const row = (id: number) =>
    db.prepare('SELECT status, attempts, current FROM ingestion_tasks WHERE id = ?').get(id);
  const leaseRows = () =>
    db.prepare('SELECT task_id AS taskId, project_id AS projectId, owner FROM task_leases').all();

  it('lets exactly one of two processes claim a pending task, and counts the attempt', async () => {
    const [a, b] = [leases(), leases()];
    expect(a.owner).toMatch(new RegExp(`^${hostname()}:${process.pid}:[0-9a-f]{12}$`));
    expect(b.owner).not.toBe(a.owner);
    const task = await add(1);
    const won = await Promise.all([a.claim(task), b.claim(task)]);
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(row(task.id)).toMatchObject({ status: 'running', attempts: 1 });
    expect(leaseRows()).toEqual([{ taskId: task.id, projectId: 1, owner: won[0] ? a.owner : b.owner }]);
  });

  it("holds the project's turn: another task of the project waits until the first is finished", async () => {
    const [a, b] = [leases(), leases()];
    const first = await add(1);
    const second = await add(1);
    const elsewhere = await add(2);
    expect(await a.claim(first)).toBe(true);
    expect(await b.claim(second)).toBe(false);
    expect(await b.claim(elsewhere)).toBe(true);
    expect(row(second.id)).toMatchObject({ status: 'pending' });
    // A holder that can no longer write the task (b) changes nothing.
    expect(await b.update(first.id, { status: 'completed' })).toBe(false);
    expect(await b.claim(second)).toBe(false);
    expect(await a.update(first.id, { status: 'completed' })).toBe(true);
    expect(await b.claim(second)).toBe(true);
  });

  it('lets another process take a task over only once its lease ran out; the first then cannot renew', async () => {
    const a = shortLeases();
    const b = shortLeases();
    const task = await add(1);
    expect(await a.claim(task)).toBe(true);
    expect(await a.renew(task.id)).toBe(true);
    expect(await b.claim(task)).toBe(false);
    const deadline = Date.now() + 5_000;
    while (!(await b.claim(task))) {
      if (Date.now() > deadline) throw new Error('the lease never ran out');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await a.renew(task.id)).toBe(false);
    expect(await a.update(task.id, { current: 1 })).toBe(false);
    expect(row(task.id)).toMatchObject({ status: 'running', attempts: 2, current: 0 });
  });

  it('refuses to write a field the task row does not have', async () => {
    const a = leases();
    const task = await add(1);
    await a.claim(task);
    // The type refuses it too; the store checks again for callers the compiler did not see.
    const values = { nonsense: 1 } as unknown as TaskUpdate;
    await expect(a.update(task.id, values)).rejects.toThrow('ingestion_tasks has no field nonsense');
  });

  it('lists pending tasks and running ones whose lease ran out or whose holder on this machine ended', async () => {
    const mine = leases();
    const live = timestampAt(Date.now() + 60_000);
    const pending = await add(1);
    const lapsed = await add(1);
    const orphaned = await add(2);
    const elsewhere = await add(2);
    const legacy = await add(2);
    const hold = (taskId: number, projectId: number, owner: string, until: string) =>
      db
        .prepare('INSERT INTO task_leases (task_id, project_id, owner, until) VALUES (?, ?, ?, ?)')
        .run(taskId, projectId, owner, until);
    for (const t of [lapsed, orphaned, elsewhere, legacy]) {
      db.prepare("UPDATE ingestion_tasks SET status = 'running' WHERE id = ?").run(t.id);
    }
    hold(lapsed.id, 1, 'other-host:1:ab', timestampAt(Date.now() - 1));
    // No process has this pid (above Linux's default pid_max): its holder has ended.
    hold(orphaned.id, 2, `${hostname()}:${2 ** 22 + 7}:ab`, live);
    hold(elsewhere.id, 2, 'other-host:1:ab', live);

    const ids = (await mine.claimable()).map((t) => t.id);
    expect(ids.sort()).toEqual([pending.id, lapsed.id, orphaned.id, legacy.id].sort());
    const left = leaseRows() as Array<{ taskId: number }>;
    expect(left.map((l) => l.taskId).sort()).toEqual([lapsed.id, elsewhere.id].sort());
  });
});
