import type { IncomingMessage, ServerResponse } from 'node:http';
import { startServer, type TestServer } from '@kbqa/core/testing';
import { AnalyticsService } from '../src/admin/analytics.service';
import { AdminSourcesService } from '../src/admin/sources.service';
import { IndexesService } from '../src/indexes/indexes.service';
import { startTestApp, type TestApp, type TestProject } from './helpers';

/**
 * A documentation site served in three versions, where one API changed between them: `listen`
 * took a port in 1.x, an options object in 2.x, and became `start` in 3.x (the default). The intro
 * page is the same text in every version. Versions are told apart as the test's scheme says.
 */
interface VersionedPage {
  title: string;
  body: string;
  /** Docusaurus' or Read the Docs' meta tag, when the scheme has one. */
  meta?: string;
  canonical?: string;
}

const API = {
  '1.x': 'To open the server call listen with a port number: server.listen(3000) binds the socket.',
  '2.x': 'To open the server call listen with an options object: server.listen({ port: 3000 }) binds it.',
  '3.x': 'To open the server call start with an options object: server.start({ port: 3000 }) binds it.',
} as const;
const INTRO = 'Acme is a small web framework for building HTTP services quickly and with few surprises.';
/** A page only the newest version has. */
const HOOKS = 'Lifecycle hooks run code on every request: register one with server.addHook("onRequest", fn).';

class VersionedSite {
  readonly pages = new Map<string, VersionedPage>();
  server!: TestServer;

  async start(): Promise<void> {
    this.server = await startServer((req, res) => this.handle(req, res));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const page = this.pages.get(path);
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>not found</body></html>');
      return;
    }
    const links = [...this.pages.keys()].map((p) => `<a href="${p}">${p}</a>`).join(' ');
    const html =
      `<!doctype html><html><head><title>${page.title}</title>${page.meta ?? ''}` +
      `${page.canonical ? `<link rel="canonical" href="${this.origin}${page.canonical}">` : ''}</head>` +
      `<body><nav>${links}</nav><main><h1>${page.title}</h1><p>${page.body}</p></main></body></html>`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  }

  get origin(): string {
    return this.server.origin;
  }
}

interface Source {
  content: string;
  link: string;
  metadata?: { version: string };
}

describe('versioned documentation (e2e, local site on 127.0.0.1)', () => {
  let site: VersionedSite;
  let t: TestApp;

  beforeAll(async () => {
    site = new VersionedSite();
    await site.start();
    t = await startTestApp({ KBQA_ALLOW_PRIVATE_HOSTS: site.server.hostPort });
  });
  afterAll(async () => {
    await t?.close();
    await site?.server.close();
  });

  const ingest = async (p: TestProject, body: Record<string, unknown>) => {
    const res = await t.post('/v1/ingestData', { api_key: p.serverKey, ...body }).expect(200);
    const status = await t.waitForTask(res.body.task_id as number, 60_000);
    expect(status.result).toMatchObject({ success: true });
    return status.result as Record<string, unknown>;
  };
  const ask = async (p: TestProject, question: string, extra: Record<string, unknown> = {}) => {
    const res = await t
      .post('/v1/serviceChat', { api_key: p.serverKey, question, shouldStream: false, ...extra })
      .expect(200);
    return res.body as { answer: { text: string }; sources: Source[] };
  };
  const path = (s: Source) => new URL(s.link).pathname;
  /** The passages behind an answer are never one passage twice. */
  const expectDistinct = (sources: Source[]) =>
    expect(new Set(sources.map((s) => s.content)).size).toBe(sources.length);

  describe('Docusaurus: docusaurus_version meta tags, the default version unprefixed', () => {
    let p: TestProject;
    const meta = (v: string) => `<meta name="docusaurus_version" content="${v}">`;

    beforeAll(async () => {
      site.pages.clear();
      for (const [v, prefix] of [
        ['3.x', '/docs'],
        ['2.x', '/docs/2.x'],
        ['1.x', '/docs/1.x'],
      ] as const) {
        site.pages.set(`${prefix}/intro`, { title: 'Introduction', body: INTRO, meta: meta(v) });
        site.pages.set(`${prefix}/server`, { title: 'Server', body: API[v], meta: meta(v) });
      }
      site.pages.set('/docs/hooks', { title: 'Hooks', body: HOOKS, meta: meta('3.x') });
      p = await t.createProject('docusaurus');
      await ingest(p, { url: `${site.origin}/docs/intro` });
    });

    it('keeps every version of every page, the same intro text included, with its version', async () => {
      const res = await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
      expect((res.body as unknown[]).length).toBe(7);
      const rows = await t.query<{ link: string; metadata: string }>(
        'SELECT link, metadata FROM documents WHERE project_id = ?',
        [p.id],
      );
      const byPath = new Map(rows.map((r) => [new URL(r.link).pathname, JSON.parse(r.metadata)]));
      expect(byPath.get('/docs/server')).toEqual({ version: '3.x', version_default: 1 });
      expect(byPath.get('/docs/2.x/server')).toEqual({ version: '2.x', version_default: 0 });
      expect(byPath.get('/docs/1.x/intro')).toEqual({ version: '1.x', version_default: 0 });
      // The operator's source list (the dashboard's Sources page) shows each page's version.
      const listed = await t.app.get(AdminSourcesService).list(p.id, { limit: 100 });
      const versionOf = new Map(listed.sources.map((s) => [new URL(s.source).pathname, s.version]));
      expect(versionOf.get('/docs/2.x/server')).toBe('2.x');
      expect(versionOf.get('/docs/hooks')).toBe('3.x');
    });

    it('answers from the asked version, and from the default one when none is asked', async () => {
      for (const v of ['1.x', '2.x'] as const) {
        const reply = await ask(p, 'How do I open the server on a port?', { version: v });
        expect(reply.sources.length).toBeGreaterThan(0);
        for (const s of reply.sources) {
          expect(path(s).startsWith(`/docs/${v}/`)).toBe(true);
          expect(s.metadata).toEqual({ version: v });
        }
        expect(reply.answer.text).toContain(v === '1.x' ? 'listen(3000)' : 'listen({ port: 3000 })');
        expectDistinct(reply.sources);
      }
      const latest = await ask(p, 'How do I open the server on a port?');
      expect(latest.answer.text).toContain('start({ port: 3000 })');
      for (const s of latest.sources) {
        expect(path(s)).not.toMatch(/\/docs\/[12]\.x\//);
        expect(s.metadata).toEqual({ version: '3.x' });
      }
      expectDistinct(latest.sources);
    });

    it('never cites the same page of two versions for a page unchanged across them', async () => {
      const reply = await ask(p, 'What is Acme, the web framework?', {
        retriever_options: { num_chunks: 10 },
      });
      const intros = reply.sources.filter((s) => s.content.includes('small web framework'));
      expect(intros).toHaveLength(1);
      expect(path(intros[0]!)).toBe('/docs/intro');
    });

    it('takes where.version as the same filter, and refuses both forms at once', async () => {
      const reply = await ask(p, 'How do I open the server on a port?', {
        where: { version: { $eq: '2.x' } },
      });
      expect(reply.sources.length).toBeGreaterThan(0);
      for (const s of reply.sources) expect(s.metadata).toEqual({ version: '2.x' });
      const both = await t
        .post('/v1/serviceChat', {
          api_key: p.serverKey,
          question: 'listen?',
          shouldStream: false,
          version: '1.x',
          where: { version: { $eq: '2.x' } },
        })
        .expect(400);
      expect(both.body.code).toBe('BAD_REQUEST');
    });

    it('says which version an answer comes from when the asked one has nothing', async () => {
      const reply = await ask(p, 'How do I register a lifecycle hook for every request?', { version: '1.x' });
      expect(reply.answer.text.startsWith('Version 1.x of the documentation does not cover this')).toBe(true);
      expect(reply.answer.text).toContain('comes from version 3.x');
      expect(reply.sources.map(path)).toContain('/docs/hooks');
    });

    it('counts questions per version and lists the gaps of one version', async () => {
      await ask(p, 'How do I configure quantum teleportation?', { version: '2.x' });
      const analytics = t.app.get(AnalyticsService);
      const stats = await analytics.analytics(p.id, {});
      const asked = new Map(stats.questions_per_version.map((v) => [v.version, v.questions]));
      // 1.x: the two questions of the version test, and the hook question; 2.x: one, where.version's, this.
      expect(asked.get('1.x')).toBe(2);
      expect(asked.get('2.x')).toBe(3);
      expect(asked.get(null)).toBeGreaterThanOrEqual(2);
      const gaps2 = await analytics.gaps(p.id, { version: '2.x' });
      expect(gaps2.gaps.map((g) => g.question)).toEqual(['How do I configure quantum teleportation?']);
      const gaps1 = await analytics.gaps(p.id, { version: '1.x' });
      expect(gaps1.gaps.map((g) => g.question)).not.toContain('How do I configure quantum teleportation?');
    });

    it('a sync removes a version the site dropped and adds a new one', async () => {
      for (const key of [...site.pages.keys()]) if (key.startsWith('/docs/1.x/')) site.pages.delete(key);
      site.pages.set('/docs/4.x/server', {
        title: 'Server',
        body: 'To open the server call serve with a URL: server.serve("http://0.0.0.0:3000") binds it.',
        meta: meta('4.x'),
      });
      const result = await ingest(p, { url: `${site.origin}/docs/intro` });
      expect(result).toMatchObject({ added: 1, removed: 2 });
      const old = await ask(p, 'How do I open the server on a port?', { version: '4.x' });
      expect(old.answer.text).toContain('serve("http://0.0.0.0:3000")');
      const rows = await t.query<{ n: number }>(
        "SELECT count(*) AS n FROM documents WHERE project_id = ? AND link LIKE '%/docs/1.x/%'",
        [p.id],
      );
      expect(Number(rows[0]!.n)).toBe(0);
    });
  });

  describe('Read the Docs: /en/<version>/ with its meta tag, canonical URLs at the default version', () => {
    let p: TestProject;

    beforeAll(async () => {
      site.pages.clear();
      const rtd = (v: string) => `<meta name="readthedocs-version-slug" content="${v}">`;
      for (const [v, slug] of [
        ['3.x', 'stable'],
        ['2.x', 'v2'],
        ['1.x', 'v1'],
      ] as const) {
        // Read the Docs points every version's canonical URL at the default version's page.
        site.pages.set(`/en/${slug}/intro.html`, {
          title: 'Intro',
          body: INTRO,
          meta: rtd(slug),
          canonical: '/en/stable/intro.html',
        });
        site.pages.set(`/en/${slug}/server.html`, {
          title: 'Server',
          body: API[v],
          meta: rtd(slug),
          canonical: '/en/stable/server.html',
        });
      }
      p = await t.createProject('rtd');
      await ingest(p, { url: `${site.origin}/en/stable/intro.html` });
    });

    it('keeps each version as its own page and answers per version', async () => {
      const res = await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
      expect((res.body as unknown[]).length).toBe(6);
      const v1 = await ask(p, 'How do I open the server on a port?', { version: 'v1' });
      expect(v1.answer.text).toContain('listen(3000)');
      for (const s of v1.sources) expect(path(s).startsWith('/en/v1/')).toBe(true);
      const stable = await ask(p, 'How do I open the server on a port?');
      expect(stable.answer.text).toContain('start({ port: 3000 })');
      for (const s of stable.sources) expect(path(s).startsWith('/en/stable/')).toBe(true);
      expectDistinct(stable.sources);
    });
  });

  describe('a plain path prefix with version_pattern', () => {
    let p: TestProject;

    beforeAll(async () => {
      site.pages.clear();
      site.pages.set('/guide/intro', { title: 'Intro', body: INTRO });
      site.pages.set('/guide/server', { title: 'Server', body: API['3.x'] });
      site.pages.set('/v2/guide/intro', { title: 'Intro', body: INTRO });
      site.pages.set('/v2/guide/server', { title: 'Server', body: API['2.x'] });
      site.pages.set('/v1/guide/intro', { title: 'Intro', body: INTRO });
      site.pages.set('/v1/guide/server', { title: 'Server', body: API['1.x'] });
      p = await t.createProject('pattern');
    });

    it('refuses a pattern that is not a regular expression', async () => {
      const res = await t
        .post('/v1/ingestData', {
          api_key: p.serverKey,
          url: `${site.origin}/guide/intro`,
          version_pattern: '^/v(',
        })
        .expect(400);
      expect(res.body.error).toContain('version_pattern');
    });

    it('reads versions from the path, keeps the index setting, and filters by them', async () => {
      await ingest(p, { url: `${site.origin}/guide/intro`, version_pattern: '^/v(\\d+)/' });
      const res = await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
      expect((res.body as unknown[]).length).toBe(6);
      const v2 = await ask(p, 'How do I open the server on a port?', { version: '2' });
      expect(v2.answer.text).toContain('listen({ port: 3000 })');
      for (const s of v2.sources) expect(s.metadata).toEqual({ version: '2' });
      // Unprefixed pages are the current docs: they carry no version and answer by default.
      const current = await ask(p, 'How do I open the server on a port?');
      expect(current.answer.text).toContain('start({ port: 3000 })');
      for (const s of current.sources) {
        expect(path(s).startsWith('/guide/')).toBe(true);
        expect(s.metadata).toBeUndefined();
      }
      const indexes = await t.app.get(IndexesService).list(p.id);
      expect(indexes[0]).toMatchObject({ version_pattern: '^/v(\\d+)/' });
    });
  });

  it('changes nothing for a project without versions', async () => {
    const p = await t.createProject('plain');
    const res = await t
      .post('/v1/ingestDocuments', {
        api_key: p.serverKey,
        documents: [{ source: 'notes', content: API['2.x'] }],
      })
      .expect(200);
    await t.waitForTask(res.body.task_id as number);
    const reply = await ask(p, 'How do I open the server on a port?', { version: '9.x' });
    expect(reply.answer.text).toContain('listen({ port: 3000 })');
    expect(reply.sources[0]?.metadata).toBeUndefined();
  });
});
