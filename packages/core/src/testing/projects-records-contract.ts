import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type {
  DashboardSessionRecord,
  DashboardSessionRepository,
  KeyRepository,
  ProjectRecord,
  ProjectRepository,
} from '../records/projects';

/**
 * One empty records database for one test: no project, no key. `sql` runs a statement on the
 * store's own tables (`?` placeholders; the fixture adapts them to its driver), for what the
 * repositories neither read nor write, or to stand for another process writing.
 */
export interface ProjectsRecordsContractFixture {
  projects: ProjectRepository;
  keys: KeyRepository;
  sessions: DashboardSessionRepository;
  sql(statement: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  teardown(): Promise<void>;
}

/**
 * The behaviour every implementation of the project records shares (projects, API keys, dashboard
 * sessions), on the
 * tables of the API's records: run by the SQLite and the PostgreSQL store.
 */
export function describeProjectsRecordsContract(
  name: string,
  open: () => Promise<ProjectsRecordsContractFixture>,
  options: { timeoutMs?: number } = {},
): void {
  describe(`${name} (projects records contract)`, () => {
    let f: ProjectsRecordsContractFixture;
    beforeEach(async () => {
      f = await open();
    }, options.timeoutMs);
    afterEach(() => f.teardown());
    const test = (title: string, fn: () => Promise<void>) => it(title, fn, options.timeoutMs);

    const project = async (name: string, changes: Partial<Omit<ProjectRecord, 'id'>> = {}) =>
      f.projects.create({
        name,
        exportEnabled: false,
        systemPrompt: null,
        allowedOrigins: [],
        createdAt: '2026-03-01T10:00:00.000000',
        ...changes,
      });

    describe('projects', () => {
      test('creates projects with their own ids, lists them by id and finds each', async () => {
        const a = await project('docs');
        const b = await project('api', {
          exportEnabled: true,
          systemPrompt: 'Be brief.',
          allowedOrigins: ['https://docs.example.com'],
          createdAt: '2026-03-02T10:00:00.000000',
        });
        expect(a).toEqual({
          id: a.id,
          name: 'docs',
          exportEnabled: false,
          systemPrompt: null,
          allowedOrigins: [],
          createdAt: '2026-03-01T10:00:00.000000',
        });
        expect(b.id).not.toBe(a.id);
        expect(await f.projects.list()).toEqual([a, b]);
        expect(await f.projects.find(b.id)).toEqual({
          id: b.id,
          name: 'api',
          exportEnabled: true,
          systemPrompt: 'Be brief.',
          allowedOrigins: ['https://docs.example.com'],
          createdAt: '2026-03-02T10:00:00.000000',
        });
        expect(await f.projects.find(b.id + 100)).toBeUndefined();
      });

      test('stores origins as a JSON array and the export switch as a boolean column', async () => {
        const p = await project('docs', { exportEnabled: true, allowedOrigins: ['https://a.example', '*'] });
        const [row] = await f.sql('SELECT export_enabled, allowed_origins FROM projects WHERE id = ?', [
          p.id,
        ]);
        // 1 in SQLite, true in PostgreSQL.
        expect({ ...row, export_enabled: Boolean(row!.export_enabled) }).toEqual({
          export_enabled: true,
          allowed_origins: '["https://a.example","*"]',
        });
      });

      test('changes only the given settings and returns the project as stored', async () => {
        const p = await project('docs', { systemPrompt: 'Old.', allowedOrigins: ['https://a.example'] });
        const other = await project('other');
        const renamed = await f.projects.update(p.id, { name: 'handbook' });
        expect(renamed).toEqual({ ...p, name: 'handbook' });
        expect(await f.projects.update(p.id, { exportEnabled: true, allowedOrigins: [] })).toEqual({
          ...p,
          name: 'handbook',
          exportEnabled: true,
          allowedOrigins: [],
        });
        expect(await f.projects.update(p.id, { systemPrompt: null })).toMatchObject({
          systemPrompt: null,
          exportEnabled: true,
        });
        expect(await f.projects.update(p.id, {})).toEqual(await f.projects.find(p.id));
        expect(await f.projects.find(other.id)).toEqual(other);
        expect(await f.projects.update(other.id + 100, { name: 'none' })).toBeUndefined();
        expect((await f.projects.list()).map((x) => x.name)).toEqual(['handbook', 'other']);
      });

      test("reads a project's origins as stored now, and none from a list that is not JSON strings", async () => {
        const p = await project('docs', { allowedOrigins: ['https://a.example'] });
        expect(await f.projects.allowedOrigins(p.id)).toEqual(['https://a.example']);
        expect(await f.projects.allowedOrigins(p.id + 100)).toBeUndefined();
        // Another process (the CLI) changes the row: the next read sees it, nothing is cached.
        await f.sql('UPDATE projects SET allowed_origins = ? WHERE id = ?', ['["https://b.example"]', p.id]);
        expect(await f.projects.allowedOrigins(p.id)).toEqual(['https://b.example']);
        await f.sql('UPDATE projects SET allowed_origins = ? WHERE id = ?', ['*', p.id]);
        expect(await f.projects.allowedOrigins(p.id)).toEqual([]);
        expect((await f.projects.find(p.id))!.allowedOrigins).toEqual([]);
        await f.sql('UPDATE projects SET allowed_origins = ? WHERE id = ?', ['{"0":"*"}', p.id]);
        expect(await f.projects.allowedOrigins(p.id)).toEqual([]);
        await f.sql('UPDATE projects SET allowed_origins = ? WHERE id = ?', [
          '[7,"https://c.example"]',
          p.id,
        ]);
        expect(await f.projects.allowedOrigins(p.id)).toEqual(['https://c.example']);
      });

      test('tells whether any project allows one of the given origins, exactly', async () => {
        expect(await f.projects.anyProjectAllows(['https://a.example', '*'])).toBe(false);
        await project('none');
        await project('broken');
        await f.sql("UPDATE projects SET allowed_origins = 'not json' WHERE name = 'broken'");
        const p = await project('docs', { allowedOrigins: ['https://a.example', 'https://b.example'] });
        expect(await f.projects.anyProjectAllows(['https://b.example', '*'])).toBe(true);
        expect(await f.projects.anyProjectAllows(['https://c.example', '*'])).toBe(false);
        expect(await f.projects.anyProjectAllows(['https://a.example/', 'https://A.example'])).toBe(false);
        expect(await f.projects.anyProjectAllows([])).toBe(false);
        await f.projects.update(p.id, { allowedOrigins: ['*'] });
        expect(await f.projects.anyProjectAllows(['https://c.example', '*'])).toBe(true);
        expect(await f.projects.anyProjectAllows(['https://c.example'])).toBe(false);
      });
    });

    describe('keys', () => {
      test('stores a key by its hash and lists it without, revoked keys included, by id', async () => {
        const p = await project('docs');
        const other = await project('other');
        const server = await f.keys.create({
          projectId: p.id,
          kind: 'server',
          prefix: 'kbqa_sk_Ab12Cd',
          keyHash: 'aa11',
          createdAt: '2026-03-01T10:00:00.000000',
        });
        expect(server).toEqual({
          id: server.id,
          projectId: p.id,
          kind: 'server',
          prefix: 'kbqa_sk_Ab12Cd',
          createdAt: '2026-03-01T10:00:00.000000',
          revokedAt: null,
          lastUsedAt: null,
        });
        expect(server).not.toHaveProperty('keyHash');
        const anon = await f.keys.create({
          projectId: p.id,
          kind: 'anon',
          prefix: 'kbqa_pk_Ef34Gh',
          keyHash: 'bb22',
          createdAt: '2026-03-01T11:00:00.000000',
        });
        await f.keys.create({
          projectId: other.id,
          kind: 'server',
          prefix: 'kbqa_sk_Zz',
          keyHash: 'cc33',
          createdAt: '2026-03-01T12:00:00.000000',
        });
        expect(await f.sql('SELECT key_hash FROM api_keys WHERE id = ?', [anon.id])).toEqual([
          { key_hash: 'bb22' },
        ]);
        await f.keys.revoke(server.id, '2026-03-02T00:00:00.000000');
        await f.sql('UPDATE api_keys SET last_used_at = ? WHERE id = ?', [
          '2026-03-03T00:00:00.000000',
          anon.id,
        ]);
        expect(await f.keys.listByProject(p.id)).toEqual([
          { ...server, revokedAt: '2026-03-02T00:00:00.000000' },
          { ...anon, lastUsedAt: '2026-03-03T00:00:00.000000' },
        ]);
        expect(await f.keys.listByProject(other.id + 100)).toEqual([]);
        expect(await f.keys.find(anon.id)).toEqual({ ...anon, lastUsedAt: '2026-03-03T00:00:00.000000' });
        expect(await f.keys.find(anon.id + 100)).toBeUndefined();
      });

      test('revokes a key once: the first revocation time stays', async () => {
        const p = await project('docs');
        const key = await f.keys.create({
          projectId: p.id,
          kind: 'anon',
          prefix: 'kbqa_pk_x',
          keyHash: 'aa',
          createdAt: '2026-03-01T10:00:00.000000',
        });
        const first = await f.keys.revoke(key.id, '2026-03-02T00:00:00.000000');
        expect(first).toEqual({ ...key, revokedAt: '2026-03-02T00:00:00.000000' });
        expect(await f.keys.revoke(key.id, '2026-03-05T00:00:00.000000')).toEqual(first);
        expect(await f.keys.revoke(key.id + 100, '2026-03-05T00:00:00.000000')).toBeUndefined();
      });

      test("deletes a project's keys with the project", async () => {
        const p = await project('docs');
        const key = await f.keys.create({
          projectId: p.id,
          kind: 'server',
          prefix: 'kbqa_sk_x',
          keyHash: 'aa',
          createdAt: '2026-03-01T10:00:00.000000',
        });
        await f.sql('DELETE FROM projects WHERE id = ?', [p.id]);
        expect(await f.keys.find(key.id)).toBeUndefined();
      });
    });
    describe('dashboard sessions', () => {
      const session = (idHash: string, expiresAt: string): DashboardSessionRecord => ({
        idHash,
        csrfToken: `csrf-${idHash}`,
        tokenHash: 'operator-hash',
        createdAt: '2026-03-01T10:00:00.000Z',
        expiresAt,
      });

      test('stores sessions and finds each by the hash of its cookie value', async () => {
        const a = session('aa', '2026-03-01T22:00:00.000Z');
        const b = session('bb', '2026-03-01T23:00:00.000Z');
        await f.sessions.create(a);
        await f.sessions.create(b);
        expect(await f.sessions.find('aa')).toEqual(a);
        expect(await f.sessions.find('bb')).toEqual(b);
        expect(await f.sessions.find('cc')).toBeUndefined();
        expect(
          await f.sql('SELECT id_hash, csrf_token, token_hash FROM dashboard_sessions WHERE id_hash = ?', [
            'bb',
          ]),
        ).toEqual([{ id_hash: 'bb', csrf_token: 'csrf-bb', token_hash: 'operator-hash' }]);
      });

      test('ends one session and leaves the others', async () => {
        await f.sessions.create(session('aa', '2026-03-01T22:00:00.000Z'));
        await f.sessions.create(session('bb', '2026-03-01T22:00:00.000Z'));
        await f.sessions.delete('aa');
        await f.sessions.delete('unknown');
        expect(await f.sessions.find('aa')).toBeUndefined();
        expect(await f.sessions.find('bb')).toBeDefined();
      });

      test('drops the sessions that expire at or before the given moment', async () => {
        await f.sessions.create(session('past', '2026-03-01T11:59:59.999Z'));
        await f.sessions.create(session('now', '2026-03-01T12:00:00.000Z'));
        await f.sessions.create(session('later', '2026-03-01T12:00:00.001Z'));
        await f.sessions.deleteExpired('2026-03-01T12:00:00.000Z');
        const left = await f.sql('SELECT id_hash FROM dashboard_sessions ORDER BY id_hash');
        expect(left).toEqual([{ id_hash: 'later' }]);
      });
    });
  });
}
