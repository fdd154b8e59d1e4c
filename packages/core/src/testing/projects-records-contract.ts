import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type {
  DashboardSessionRecord,
  DashboardSessionRepository,
  KeyRepository,
  ProjectRecord,
  ProjectRepository,
  ToolRecord,
  ToolRepository,
  ToolSourceRecord,
  ToolSourceRepository,
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
  tools: ToolRepository;
  toolSources: ToolSourceRepository;
  sql(statement: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  teardown(): Promise<void>;
}

/**
 * The behaviour every implementation of the project records shares (projects, API keys, dashboard
 * sessions, tools and tool sources), on the
 * tables of the API's records: run by the SQLite and the PostgreSQL store.
 */
export function describeProjectsRecordsContract(
  name: string,
  open: () => Promise<ProjectsRecordsContractFixture>,
  options: {
    timeoutMs?: number;
    /**
     * Whether the cases where the store refuses a write (a duplicate name) run: false for PGlite,
     * whose socket server drops the connection after an error; the PostgreSQL server runs them.
     */
    refusedWrites?: boolean;
  } = {},
): void {
  describe(`${name} (projects records contract)`, () => {
    let f: ProjectsRecordsContractFixture;
    beforeEach(async () => {
      f = await open();
    }, options.timeoutMs);
    afterEach(() => f.teardown());
    const test = (title: string, fn: () => Promise<void>) => it(title, fn, options.timeoutMs);
    const testRefusal = (title: string, fn: () => Promise<void>) =>
      (options.refusedWrites === false ? it.skip : it)(title, fn, options.timeoutMs);
    /**
     * The message a refused write fails with (empty when it succeeded). Read as text rather than
     * with `rejects.toThrow`: better-sqlite3's error class belongs to the first test file that
     * loaded the addon, so in a later one it is no `Error` of the test's realm.
     */
    const refusal = async (write: () => unknown): Promise<string> => {
      try {
        await write();
        return '';
      } catch (e) {
        return String((e as { message?: unknown }).message ?? e);
      }
    };

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
    describe('tools', () => {
      const tool = (
        projectId: number,
        name: string,
        changes: Partial<ToolRecord> = {},
      ): Omit<ToolRecord, 'id'> => ({
        projectId,
        name,
        description: `the ${name} tool`,
        parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
        method: 'GET',
        url: 'https://shop.example/stock/{sku}',
        headers: [{ name: 'Authorization', value: 'sealed:abc' }],
        body: null,
        isPublic: false,
        createdAt: '2026-03-01T10:00:00.000000',
        updatedAt: '2026-03-01T10:00:00.000000',
        ...changes,
      });

      test("stores tools with their JSON columns and lists a project's by id, public ones alone on asking", async () => {
        const p = await project('shop');
        const other = await project('other');
        const stock = await f.tools.create(tool(p.id, 'stock'));
        expect(stock).toEqual({ id: stock.id, ...tool(p.id, 'stock') });
        const order = await f.tools.create(
          tool(p.id, 'order', {
            method: 'POST',
            body: { sku: '{sku}', quantity: 1, note: null },
            headers: [],
            isPublic: true,
          }),
        );
        await f.tools.create(tool(other.id, 'stock', { isPublic: true }));
        expect(await f.tools.list(p.id)).toEqual([stock, order]);
        expect(await f.tools.list(p.id, { publicOnly: true })).toEqual([order]);
        expect(await f.tools.list(p.id, { publicOnly: false })).toEqual([stock, order]);
        expect(await f.tools.find(order.id)).toEqual({
          ...order,
          body: { sku: '{sku}', quantity: 1, note: null },
        });
        expect(await f.tools.find(order.id + 100)).toBeUndefined();
        const rows = await f.sql(
          'SELECT name, parameters, headers, body, public FROM tools WHERE project_id = ? ORDER BY id',
          [p.id],
        );
        // `public` is 0/1 in SQLite, false/true in PostgreSQL; a tool without a body stores NULL.
        expect(rows.map((r) => ({ ...r, public: Boolean(r.public) }))).toEqual([
          {
            name: 'stock',
            parameters: JSON.stringify(stock.parameters),
            headers: '[{"name":"Authorization","value":"sealed:abc"}]',
            body: null,
            public: false,
          },
          {
            name: 'order',
            parameters: JSON.stringify(stock.parameters),
            headers: '[]',
            body: '{"sku":"{sku}","quantity":1,"note":null}',
            public: true,
          },
        ]);
      });

      test("counts a project's tools and tells which names it has taken", async () => {
        const p = await project('shop');
        const other = await project('other');
        expect(await f.tools.count(p.id)).toBe(0);
        await f.tools.create(tool(p.id, 'stock'));
        await f.tools.create(tool(p.id, 'order'));
        await f.tools.create(tool(other.id, 'refund'));
        expect(await f.tools.count(p.id)).toBe(2);
        expect(await f.tools.nameTaken(p.id, 'stock')).toBe(true);
        expect(await f.tools.nameTaken(p.id, 'refund')).toBe(false);
        expect(await f.tools.nameTaken(p.id, 'Stock')).toBe(false);
      });

      testRefusal('refuses a second tool of the same name in a project, not in another', async () => {
        const p = await project('shop');
        const other = await project('other');
        await f.tools.create(tool(p.id, 'stock'));
        expect(await refusal(() => f.tools.create(tool(p.id, 'stock')))).toMatch(/unique|duplicate/i);
        expect((await f.tools.create(tool(other.id, 'stock'))).projectId).toBe(other.id);
        expect(await f.tools.count(p.id)).toBe(1);
      });

      test("replaces a tool's definition, keeping its project and creation time", async () => {
        const p = await project('shop');
        const stock = await f.tools.create(tool(p.id, 'stock', { body: { a: 1 } }));
        const other = await f.tools.create(tool(p.id, 'other'));
        const changes = {
          name: 'inventory',
          description: 'how many are left',
          parameters: { type: 'object', properties: {} },
          method: 'POST',
          url: 'https://shop.example/inventory',
          headers: [{ name: 'X-Key', value: 'sealed:def' }],
          body: null,
          isPublic: true,
          updatedAt: '2026-03-02T10:00:00.000000',
        };
        const updated = await f.tools.update(stock.id, changes);
        expect(updated).toEqual({ ...changes, id: stock.id, projectId: p.id, createdAt: stock.createdAt });
        expect(await f.tools.find(stock.id)).toEqual(updated);
        expect(await f.tools.find(other.id)).toEqual(other);
        expect(await f.sql('SELECT body FROM tools WHERE id = ?', [stock.id])).toEqual([{ body: null }]);
        expect(await f.tools.update(other.id + 100, changes)).toBeUndefined();
      });

      test("deletes one tool, and a project's tools with the project", async () => {
        const p = await project('shop');
        const gone = await f.tools.create(tool(p.id, 'stock'));
        const kept = await f.tools.create(tool(p.id, 'order'));
        await f.tools.delete(gone.id);
        await f.tools.delete(gone.id + 100);
        expect(await f.tools.list(p.id)).toEqual([kept]);
        await f.sql('DELETE FROM projects WHERE id = ?', [p.id]);
        expect(await f.tools.find(kept.id)).toBeUndefined();
      });
    });

    describe('tool sources', () => {
      const source = (
        projectId: number,
        name: string,
        changes: Partial<ToolSourceRecord> = {},
      ): Omit<ToolSourceRecord, 'id'> => ({
        projectId,
        kind: 'mcp',
        name,
        url: `https://${name}.example/mcp`,
        headers: [{ name: 'Authorization', value: 'sealed:abc' }],
        isPublic: false,
        createdAt: '2026-03-01T10:00:00.000000',
        updatedAt: '2026-03-01T10:00:00.000000',
        ...changes,
      });

      test("stores sources and lists a project's by id, public ones alone on asking", async () => {
        const p = await project('shop');
        const other = await project('other');
        const crm = await f.toolSources.create(source(p.id, 'crm'));
        expect(crm).toEqual({ id: crm.id, ...source(p.id, 'crm') });
        const docs = await f.toolSources.create(source(p.id, 'docs', { headers: [], isPublic: true }));
        await f.toolSources.create(source(other.id, 'crm', { isPublic: true }));
        expect(await f.toolSources.list(p.id)).toEqual([crm, docs]);
        expect(await f.toolSources.list(p.id, { publicOnly: true })).toEqual([docs]);
        expect(await f.toolSources.find(docs.id)).toEqual(docs);
        expect(await f.toolSources.find(docs.id + 100)).toBeUndefined();
        const [row] = await f.sql('SELECT headers, public FROM tool_sources WHERE id = ?', [crm.id]);
        expect({ ...row, public: Boolean(row!.public) }).toEqual({
          headers: '[{"name":"Authorization","value":"sealed:abc"}]',
          public: false,
        });
      });

      test('tells which names a project has taken', async () => {
        const p = await project('shop');
        const other = await project('other');
        await f.toolSources.create(source(p.id, 'crm'));
        expect(await f.toolSources.nameTaken(p.id, 'crm')).toBe(true);
        expect(await f.toolSources.nameTaken(p.id, 'docs')).toBe(false);
        expect(await f.toolSources.nameTaken(other.id, 'crm')).toBe(false);
      });

      testRefusal('refuses a second source of the same name in a project, not in another', async () => {
        const p = await project('shop');
        const other = await project('other');
        await f.toolSources.create(source(p.id, 'crm'));
        expect(await refusal(() => f.toolSources.create(source(p.id, 'crm')))).toMatch(/unique|duplicate/i);
        expect((await f.toolSources.create(source(other.id, 'crm'))).projectId).toBe(other.id);
        expect(await f.toolSources.list(p.id)).toHaveLength(1);
      });

      test("deletes one source, and a project's sources with the project", async () => {
        const p = await project('shop');
        const gone = await f.toolSources.create(source(p.id, 'crm'));
        const kept = await f.toolSources.create(source(p.id, 'docs'));
        await f.toolSources.delete(gone.id);
        expect(await f.toolSources.list(p.id)).toEqual([kept]);
        await f.sql('DELETE FROM projects WHERE id = ?', [p.id]);
        expect(await f.toolSources.find(kept.id)).toBeUndefined();
      });
    });
  });
}
