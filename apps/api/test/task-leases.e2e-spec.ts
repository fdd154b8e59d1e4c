import type { ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { startServer as startSite, type TestServer } from '@kbqa/core/testing';
import { cli, postJson, startServer, type ServerProcess } from './process-helpers';
import { createScratchDatabase, postgresReachable } from './postgres-scratch';

if (!postgresReachable) {
  console.warn(
    'PostgreSQL at 127.0.0.1:5432 is unreachable: the task-lease tests on PostgreSQL are SKIPPED ' +
      '(the SQLite ones run).',
  );
}

/** Short, so a takeover after a hang is quick to see; renewed every third of it. */
const LEASE_MS = 3000;

/**
 * A site whose pages `/p/<name>` are held open (the task fetching one is then running) until the
 * test releases them; it counts requests and notes which came while another page was held.
 */
class HoldingSite {
  server!: TestServer;
  readonly requests = new Map<string, number>();
  /** `[page, page held at that moment]` for each request that came while another was held. */
  readonly overlaps: Array<[string, string]> = [];
  private readonly held = new Map<string, ServerResponse[]>();
  private readonly open = new Set<string>();
  private readonly waiters: Array<() => void> = [];

  async start(): Promise<void> {
    this.server = await startSite((req, res) => {
      const name = /^\/p\/(\w+)$/.exec(req.url ?? '')?.[1];
      if (!name) return void res.writeHead(404).end();
      this.requests.set(name, (this.requests.get(name) ?? 0) + 1);
      for (const [other, list] of this.held) {
        if (other !== name && list.length > 0) this.overlaps.push([name, other]);
      }
      this.waiters.splice(0).forEach((w) => w());
      if (this.open.has(name)) return answer(res, name);
      const list = this.held.get(name) ?? [];
      list.push(res);
      this.held.set(name, list);
    });
  }

  url(name: string): string {
    return `${this.server.origin}/p/${name}`;
  }

  /** Resolves once `name` was requested `times` times in all. */
  async requested(name: string, times = 1): Promise<void> {
    while ((this.requests.get(name) ?? 0) < times) await new Promise<void>((r) => this.waiters.push(r));
  }

  /** Answers the held requests of `name` and every later one at once. */
  release(name: string): void {
    this.open.add(name);
    for (const res of this.held.get(name)?.splice(0) ?? []) answer(res, name);
  }

  /** Later requests of `name` are answered at once; held ones are dropped (their process died). */
  reopen(name: string): void {
    this.open.add(name);
    for (const res of this.held.get(name)?.splice(0) ?? []) res.destroy();
  }

  async close(): Promise<void> {
    for (const list of this.held.values()) list.splice(0).forEach((res) => res.destroy());
    await this.server.close();
  }
}

function answer(res: ServerResponse, name: string): void {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end(
    `<html><head><title>${name}</title></head><body><main><h1>${name}</h1>` +
      `<p>The page ${name}, served at last.</p></main></body></html>`,
  );
}

/** Polls `check` until it returns a value, failing with `what` after `ms`. */
async function until<T>(check: () => Promise<T | undefined>, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface TaskRow {
  status: string;
  attempts: number;
  success: boolean | null;
}

/** Where the two processes keep their data, and how the test reads a task row there. */
interface Store {
  env: Record<string, string>;
  task(id: number): Promise<TaskRow>;
  drop(): Promise<void>;
}

function sqliteStore(): Promise<Store> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kbqa-leases-'));
  return Promise.resolve({
    env: { KBQA_DATA_DIR: dataDir },
    task: (id) => {
      const db = new Database(join(dataDir, 'kbqa.sqlite'), { readonly: true });
      try {
        const row = db
          .prepare('SELECT status, attempts, success FROM ingestion_tasks WHERE id = ?')
          .get(id) as {
          status: string;
          attempts: number;
          success: number | null;
        };
        return Promise.resolve({ ...row, success: row.success === null ? null : row.success === 1 });
      } finally {
        db.close();
      }
    },
    drop: () => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })),
  });
}

async function postgresStore(): Promise<Store> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kbqa-leases-pg-'));
  const scratch = await createScratchDatabase('kbqa_leases');
  return {
    env: { KBQA_DATA_DIR: dataDir, KBQA_DATABASE_URL: scratch.url },
    task: async (id) => {
      const client = new Client({ connectionString: scratch.url });
      await client.connect();
      try {
        const { rows } = await client.query<TaskRow>(
          'SELECT status, attempts, success FROM ingestion_tasks WHERE id = $1',
          [id],
        );
        return rows[0]!;
      } finally {
        await client.end();
      }
    },
    drop: async () => {
      await scratch.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('Two API processes on one SQLite data directory without Redis (e2e, task leases)', () =>
  leaseTests(sqliteStore));

(postgresReachable ? describe : describe.skip)(
  'Two API processes on one PostgreSQL database without Redis (e2e, task leases)',
  () => leaseTests(postgresStore),
);

/** The same tests on either store: each starts two processes on a store of its own. */
function leaseTests(open: () => Promise<Store>): void {
  jest.setTimeout(120_000);
  let store: Store;
  let site: HoldingSite;
  const processes: ServerProcess[] = [];
  let env: Record<string, string>;
  let keys: string[];

  beforeEach(async () => {
    store = await open();
    site = new HoldingSite();
    await site.start();
    env = {
      ...store.env,
      REDIS_URL: '',
      KBQA_ALLOW_PRIVATE_HOSTS: site.server.hostPort,
      KBQA_TASK_LEASE_MS: String(LEASE_MS),
      KBQA_QUEUE_RECONCILE_MS: '200',
    };
    keys = [];
    for (const name of ['leases', 'other']) {
      const project = JSON.parse(await cli(['projects', 'create', name, '--json'], env));
      const key = JSON.parse(
        await cli(['keys', 'create', '--project', String(project.id), '--kind', 'server', '--json'], env),
      );
      keys.push(key.key as string);
    }
  });
  afterEach(async () => {
    for (const p of processes.splice(0)) {
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill('SIGCONT');
        await p.stop();
      }
    }
    await site.close();
    await store.drop();
  });

  const start = async (extra: Record<string, string> = {}): Promise<ServerProcess> => {
    const p = await startServer({ ...env, ...extra });
    processes.push(p);
    return p;
  };
  const ingestPage = async (p: ServerProcess, name: string, key = keys[0]!): Promise<number> => {
    const res = await postJson(p.baseUrl, '/v1/ingestData', {
      api_key: key,
      type: 'url',
      url: site.url(name),
    });
    expect(res.status).toBe(200);
    return res.body.task_id as number;
  };
  const status = async (p: ServerProcess, taskId: number) =>
    (await postJson(p.baseUrl, '/v1/ingestionStatus', { task_id: String(taskId), api_key: keys[0] })).body;
  const completed = (p: ServerProcess, taskId: number, what: string, ms?: number) =>
    until(
      async () => {
        const s = await status(p, taskId);
        return s.status === 'completed' ? s : undefined;
      },
      what,
      ms,
    );
  /** A one-document task of the other project, sent to `p`, run to its end there. */
  const marker = async (p: ServerProcess) => {
    const res = await postJson(p.baseUrl, '/v1/ingestDocuments', {
      api_key: keys[1],
      documents: [{ source: 'marker', content: '# Marker\n\nA task of another project.' }],
    });
    expect(res.status).toBe(200);
    await until(async () => {
      const s = await postJson(p.baseUrl, '/v1/ingestionStatus', {
        task_id: String(res.body.task_id),
        api_key: keys[1],
      });
      return s.body.status === 'completed' ? true : undefined;
    }, 'the marker task completes');
  };

  it('does not run again a task the other process is running when one process restarts', async () => {
    const a = await start();
    let b = await start();
    const taskId = await ingestPage(a, 'long');
    await site.requested('long');
    expect((await status(a, taskId)).status).toBe('running');

    await b.stop();
    b = await start();
    // The restarted process has started and run a task of its own: whatever its start queued came first.
    await marker(b);

    expect(site.requests.get('long')).toBe(1);
    expect(b.output()).not.toMatch(/attempt 2/);
    site.release('long');
    const done = await completed(a, taskId, 'the long task completes');
    expect(done.result).toMatchObject({ success: true, indexed: 1, error: '' });
    expect(await store.task(taskId)).toMatchObject({ status: 'completed', attempts: 1, success: true });
    expect(site.requests.get('long')).toBe(1);
  });

  it('has the other process take over and complete the task of a process killed with SIGKILL', async () => {
    const a = await start();
    const b = await start();
    const taskId = await ingestPage(a, 'crash');
    await site.requested('crash');
    await a.kill();
    site.reopen('crash');

    const done = await completed(
      b,
      taskId,
      'the survivor completes the killed process’s task',
      3 * LEASE_MS + 5000,
    );
    expect(done.result).toMatchObject({ success: true, indexed: 1, error: '' });
    expect(await store.task(taskId)).toMatchObject({ status: 'completed', attempts: 2, success: true });
    expect(b.output()).toMatch(new RegExp(`task ${taskId} started: .*\\(attempt 2\\)`));
  });

  it('takes over the task of a hung process once its lease ran out, and the hung run records nothing', async () => {
    const a = await start();
    const b = await start();
    const taskId = await ingestPage(a, 'hung');
    await site.requested('hung');
    a.child.kill('SIGSTOP'); // alive but not renewing: only the lease's end frees the task
    site.release('hung'); // the held answer waits in the stopped process's socket

    const done = await completed(
      b,
      taskId,
      'the other process completes the hung process’s task',
      3 * LEASE_MS + 5000,
    );
    expect(done.result).toMatchObject({ success: true, indexed: 1, error: '' });
    expect(site.requests.get('hung')).toBe(2);

    a.child.kill('SIGCONT');
    await until(
      () => Promise.resolve(/another process took it over/.test(a.output()) ? true : undefined),
      'the resumed process sees it lost the task',
    );
    expect(await store.task(taskId)).toMatchObject({ status: 'completed', attempts: 2, success: true });
  });

  it('never runs two tasks of one project at once, whichever process each was sent to', async () => {
    const a = await start();
    // One task at a time in b: the marker after the second task runs only once b is done with it.
    const b = await start({ KBQA_QUEUE_CONCURRENCY: '1' });
    const first = await ingestPage(a, 'first');
    await site.requested('first');
    site.release('second');
    const second = await ingestPage(b, 'second');
    await marker(b);
    expect(site.requests.get('second')).toBeUndefined();
    expect((await status(b, second)).status).toBe('pending');

    site.release('first');
    await completed(a, first, 'the first task completes');
    const done = await completed(b, second, 'the second task completes after the first');
    expect(done.result).toMatchObject({ success: true, indexed: 1 });
    expect(site.overlaps).toEqual([]);
    expect(await store.task(second)).toMatchObject({ attempts: 1 });
  });
}
