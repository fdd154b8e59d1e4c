import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { backupDatabase, readBackupInfo, restoreDatabase, unknownMigrations } from './backup';
import { openDataSource } from './data-source';
import { MIGRATIONS } from './migrations';

describe(backupDatabase.name, () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'kbqa-backup-spec-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('copies a database another connection writes to throughout, as it was at one moment', async () => {
    const file = join(dir, 'kbqa.sqlite');
    const ds = await openDataSource({ file });
    await ds.destroy();
    const writer = new BetterSqlite3(file);
    writer.pragma('journal_mode = WAL');
    // Rows and a counter written in one transaction: a snapshot has as many rows as the counter says.
    writer.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT); CREATE TABLE counter (n INTEGER)');
    writer.exec('INSERT INTO counter VALUES (0)');
    const add = writer.transaction((n: number) => {
      const insert = writer.prepare('INSERT INTO filler (body) VALUES (?)');
      for (let i = 0; i < n; i++) insert.run('x'.repeat(2_000));
      writer.prepare('UPDATE counter SET n = n + ?').run(n);
    });
    add(4_000); // about 8 MB: several steps of the copy
    let writes = 0;
    let copying = true;
    const writing = (async () => {
      while (copying) {
        add(10);
        writes++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    const dest = join(dir, 'out.backup');
    const result = await backupDatabase(file, dest, {
      version: '1.2.3',
      files: new Map([['secret.key', Buffer.from('k\n')]]),
    });
    copying = false;
    await writing;
    writer.close();
    expect(writes).toBeGreaterThan(0);
    expect(result.bytes).toBeGreaterThan(8_000_000);
    expect(readdirSync(dir).filter((n) => n.includes('partial'))).toEqual([]);

    const copy = new BetterSqlite3(dest, { readonly: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      const rows = (copy.prepare('SELECT count(*) AS n FROM filler').get() as { n: number }).n;
      expect(copy.prepare('SELECT n FROM counter').get()).toEqual({ n: rows });
    } finally {
      copy.close();
    }
    const info = readBackupInfo(dest);
    expect(info).toMatchObject({ format: 'kbqa-sqlite-backup-1', version: '1.2.3' });
    expect(info.migrations).toEqual(MIGRATIONS.map((m) => new m().name));
    expect(info.files).toEqual(new Map([['secret.key', Buffer.from('k\n')]]));
    expect(unknownMigrations(info)).toEqual([]);
  });

  it('restores a backup without its own table and without the task leases of the processes that took it', async () => {
    const file = join(dir, 'kbqa.sqlite');
    const ds = await openDataSource({ file });
    await ds.query("INSERT INTO projects (name, created_at) VALUES ('p', '2026-01-01')");
    await ds.query(
      'INSERT INTO ingestion_tasks (project_id, kind, status, payload, created_at, updated_at) ' +
        "VALUES (1, 'documents', 'running', '{}', '2026-01-01', '2026-01-01')",
    );
    await ds.query(
      "INSERT INTO task_leases (task_id, project_id, owner, until) VALUES (1, 1, 'gone', '9999')",
    );
    await ds.destroy();
    const dest = join(dir, 'b.backup');
    await backupDatabase(file, dest, { version: 'x', files: new Map() });
    const target = join(dir, 'restored', 'kbqa.sqlite');
    mkdirSync(join(dir, 'restored'));
    restoreDatabase(dest, target);
    const db = new BetterSqlite3(target, { readonly: true });
    try {
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'kbqa_backup'").all()).toEqual([]);
      expect(db.prepare('SELECT count(*) AS n FROM task_leases').get()).toEqual({ n: 0 });
      expect(db.prepare('SELECT status FROM ingestion_tasks').all()).toEqual([{ status: 'running' }]);
    } finally {
      db.close();
    }
    expect(existsSync(dest)).toBe(true);
  });

  it('says a file that is not a backup is not one', () => {
    const file = join(dir, 'plain.sqlite');
    const db = new BetterSqlite3(file);
    db.exec('CREATE TABLE t (x)');
    db.close();
    expect(() => readBackupInfo(file)).toThrow(/is not a kbqa backup/);
  });
});
