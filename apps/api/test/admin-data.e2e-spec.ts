import { timestampAt } from '@kbqa/store-sqlite';
import request from 'supertest';
import { startTestApp, type TestApp, type TestProject } from './helpers';
import { answerText, parseSse } from './sse';

const TOKEN = 'test-operator-token-0123456789';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const today = () => new Date().toISOString().slice(0, 10);
const dayAfter = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

const DOCS = [
  {
    source: 'install-guide',
    content:
      '# Installation\n\nInstall the kbqa server with pnpm install, then start it with pnpm start. The installer needs Node 22.',
  },
  {
    source: 'logging-guide',
    content:
      '# Logging\n\nLogging is configured with the KBQA_LOG_LEVEL variable. Set the log level to debug to see every request.',
  },
  {
    source: 'plugins-guide',
    content:
      '# Plugins\n\nPlugins extend the server. Register a plugin in the plugins section of the configuration file.',
  },
  {
    source: 'Accounts-Guide',
    content:
      '# Accounts\n\nAdmin accounts are created by the operator. Admin accounts manage the members of a workspace and their roles.',
  },
];

describe('Operator API: dashboard data (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ KBQA_ADMIN_TOKEN: TOKEN, KBQA_RATE_FAILED_KEYS_PER_MIN: '1000' });
  });
  afterAll(() => t.close());

  type Method = 'get' | 'post' | 'patch' | 'delete';
  const call = (method: Method, path: string, body?: object) => {
    const req = request(t.http)[method](path).set('Authorization', `Bearer ${TOKEN}`);
    return body === undefined ? req : req.send(body);
  };

  async function projectWithDocs(name: string): Promise<TestProject> {
    const p = await t.createProject(name);
    const res = await t.post('/v1/ingestDocuments', { api_key: p.serverKey, documents: DOCS }).expect(200);
    await t.waitForTask(res.body.task_id);
    return p;
  }

  const chat = async (p: TestProject, question: string, conversationId?: number) => {
    const res = await t
      .post('/v1/serviceChat', {
        api_key: p.serverKey,
        question,
        shouldStream: false,
        ...(conversationId === undefined ? {} : { conversation_id: conversationId }),
      })
      .expect(200);
    return res.body as { answer: { text: string }; message_id: number; sources: Array<{ link: string }> };
  };
  const newConversation = async (p: TestProject) =>
    (await t.post('/v1/newConversation', { api_key: p.serverKey }).expect(200)).body
      .conversation_id as number;
  const rate = (p: TestProject, messageId: number, rating: number) =>
    t
      .post('/v0/rateMessage', { api_key: p.serverKey, message_id: messageId, rating_value: rating })
      .expect(200);
  const end = (p: TestProject, conversationId: number) =>
    t.post('/v1/endConversation', { api_key: p.serverKey, conversation_id: conversationId }).expect(200);

  describe('keys', () => {
    it('shows when a key was last used, and null for a key never used', async () => {
      const p = await t.createProject('key-use');
      const before = await call('get', `/admin/v1/projects/${p.id}/keys`).expect(200);
      expect(before.body.keys.map((k: { last_used_at: unknown }) => k.last_used_at)).toEqual([null, null]);
      await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
      const after = await call('get', `/admin/v1/projects/${p.id}/keys`).expect(200);
      const [server, anon] = after.body.keys as Array<{ kind: string; last_used_at: string | null }>;
      expect(server).toMatchObject({ kind: 'server', last_used_at: expect.stringMatching(ISO) });
      expect(Date.now() - Date.parse(server!.last_used_at!)).toBeLessThan(60_000);
      expect(anon).toMatchObject({ kind: 'anon', last_used_at: null });
    });
  });

  describe('sources', () => {
    let p: TestProject;
    beforeAll(async () => (p = await projectWithDocs('sources')));

    it('lists sources with their kind, index and passages, filtered and paged', async () => {
      const all = await call('get', `/admin/v1/projects/${p.id}/sources`).expect(200);
      expect(all.body.total).toBe(4);
      expect(all.body.sources[0]).toEqual({
        id: expect.any(Number),
        source: 'install-guide',
        kind: 'documents',
        index_id: null,
        date_added: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
        chunks: expect.any(Number),
        title: 'Installation', // its top heading
        version: null,
      });
      expect(all.body.sources[0].chunks).toBeGreaterThan(0);
      expect(all.body.sources.map((s: { source: string }) => s.source)).toEqual(DOCS.map((d) => d.source));

      const found = await call('get', `/admin/v1/projects/${p.id}/sources?q=ACCOUNTS-g`).expect(200);
      expect(found.body).toMatchObject({ total: 1, sources: [{ source: 'Accounts-Guide' }] });

      const page = await call('get', `/admin/v1/projects/${p.id}/sources?limit=2&offset=1`).expect(200);
      expect(page.body.total).toBe(4);
      expect(page.body.sources.map((s: { source: string }) => s.source)).toEqual([
        'logging-guide',
        'plugins-guide',
      ]);

      // An index's pages: placed in one directly, as an ingestData of a site would.
      await t.query("UPDATE sources SET index_id = 77 WHERE project_id = ? AND source = 'plugins-guide'", [
        p.id,
      ]);
      const indexed = await call('get', `/admin/v1/projects/${p.id}/sources?index_id=77`).expect(200);
      expect(indexed.body).toMatchObject({ total: 1, sources: [{ source: 'plugins-guide', index_id: 77 }] });
    });

    it('refuses bad filters and answers 404 for an unknown project', async () => {
      for (const [qs, error] of [
        ['limit=0', 'limit must be an integer from 1 to 500'],
        ['offset=-1', 'offset must be a non-negative integer'],
        ['index_id=x', 'index_id must be a positive integer'],
        ['sort=id', 'property sort should not exist'],
      ]) {
        const res = await call('get', `/admin/v1/projects/${p.id}/sources?${qs}`).expect(400);
        expect(res.body).toEqual({ error, code: 'BAD_REQUEST' });
      }
      expect((await call('get', '/admin/v1/projects/999999/sources').expect(404)).body).toEqual({
        error: 'project 999999 does not exist',
        code: 'NOT_FOUND',
      });
    });

    it('deletes a source with its documents and passages', async () => {
      const q = await projectWithDocs('delete-source');
      const listed = await call('get', `/admin/v1/projects/${q.id}/sources?q=logging`).expect(200);
      const id = listed.body.sources[0].id as number;
      expect((await call('delete', `/admin/v1/sources/${id}`).expect(200)).body).toEqual({ deleted: 1 });
      const left = await t.query<{ n: number }>(
        'SELECT (SELECT count(*) FROM chunks WHERE source_id = ?) + (SELECT count(*) FROM documents WHERE source_id = ?) AS n',
        [id, id],
      );
      expect(left[0]?.n).toBe(0);
      const sources = await t.post('/v1/getSources', { api_key: q.serverKey }).expect(200);
      expect(sources.body.map((s: { source: string }) => s.source)).not.toContain('logging-guide');
      expect(sources.body).toHaveLength(3);
      expect((await call('delete', `/admin/v1/sources/${id}`).expect(404)).body).toEqual({
        error: `source ${id} does not exist`,
        code: 'NOT_FOUND',
      });
      expect((await call('delete', '/admin/v1/sources/abc').expect(400)).body.error).toBe(
        'id must be a positive integer',
      );
    });
  });

  describe('teaching', () => {
    const QUESTION = 'How do I reset my password?';
    const ANSWER =
      'Open Settings > Security and click Reset password; the link in the email is valid for one hour.';

    it('adds, lists, changes and deletes taught pairs, stored as teach sources', async () => {
      const p = await projectWithDocs('teach-crud');
      const created = await call('post', `/admin/v1/projects/${p.id}/taught`, {
        question: ` ${QUESTION} `,
        answer: ANSWER,
      }).expect(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        question: QUESTION,
        answer: ANSWER,
        source: `taught:${created.body.id}`,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect((await call('get', `/admin/v1/projects/${p.id}/taught`).expect(200)).body).toEqual({
        taught: [created.body],
      });
      const sources = await call('get', `/admin/v1/projects/${p.id}/sources?q=taught:`).expect(200);
      expect(sources.body.sources).toEqual([
        expect.objectContaining({ source: created.body.source, kind: 'teach', index_id: null }),
      ]);
      const publicList = await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
      expect(publicList.body.map((s: { source: string }) => s.source)).toContain(created.body.source);

      const changed = await call('patch', `/admin/v1/taught/${created.body.id}`, {
        answer: 'Ask an administrator to reset it.',
      }).expect(200);
      expect(changed.body).toEqual({
        ...created.body,
        answer: 'Ask an administrator to reset it.',
        updated_at: expect.stringMatching(ISO),
      });
      // The new answer is what chat now uses.
      const answered = await chat(p, 'how can I reset the password');
      expect(answered.answer.text.startsWith('Ask an administrator to reset it.')).toBe(true);

      expect((await call('delete', `/admin/v1/taught/${created.body.id}`).expect(200)).body).toEqual({
        deleted: 1,
      });
      expect((await call('get', `/admin/v1/projects/${p.id}/taught`).expect(200)).body).toEqual({
        taught: [],
      });
      const after = await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
      expect(after.body.map((s: { source: string }) => s.source)).not.toContain(created.body.source);
      const chunks = await t.query<{ n: number }>(
        "SELECT count(*) AS n FROM chunks c JOIN sources s ON s.id = c.source_id WHERE s.kind = 'teach' AND s.project_id = ?",
        [p.id],
      );
      expect(chunks[0]?.n).toBe(0);
      expect((await chat(p, 'how can I reset the password')).answer.text).not.toContain('administrator');
    });

    it('keeps taught pairs through deleteSource with delete_all', async () => {
      const p = await projectWithDocs('teach-keep');
      const taught = (
        await call('post', `/admin/v1/projects/${p.id}/taught`, {
          question: QUESTION,
          answer: ANSWER,
        }).expect(201)
      ).body;
      const res = await t.post('/v1/deleteSource', { api_key: p.serverKey, delete_all: true }).expect(200);
      expect(res.body).toEqual({ message: 'Source(s) deleted', deleted: DOCS.length });
      const left = await t.post('/v1/getSources', { api_key: p.serverKey }).expect(200);
      expect(left.body.map((s: { source: string }) => s.source)).toEqual([taught.source]);
      expect((await call('get', `/admin/v1/projects/${p.id}/taught`).expect(200)).body.taught).toEqual([
        taught,
      ]);
      expect((await chat(p, 'how do I reset my password')).answer.text.startsWith(ANSWER)).toBe(true);
      // Deleting its source from the source list forgets the pair too.
      const listed = await call('get', `/admin/v1/projects/${p.id}/sources?q=taught`).expect(200);
      await call('delete', `/admin/v1/sources/${listed.body.sources[0].id}`).expect(200);
      expect((await call('get', `/admin/v1/projects/${p.id}/taught`).expect(200)).body).toEqual({
        taught: [],
      });
      const rows = await t.query<{ n: number }>(
        'SELECT count(*) AS n FROM taught_answers WHERE project_id = ?',
        [p.id],
      );
      expect(rows[0]?.n).toBe(0);
    });

    it('answers a close question with the taught answer first and cites it first, as JSON and streamed', async () => {
      const p = await projectWithDocs('teach-chat');
      const taught = (
        await call('post', `/admin/v1/projects/${p.id}/taught`, {
          question: QUESTION,
          answer: ANSWER,
        }).expect(201)
      ).body;

      const json = await chat(p, 'How can I reset the password?');
      expect(json.answer.text.startsWith(ANSWER)).toBe(true);
      expect(json.sources[0]).toMatchObject({ link: taught.source, content: ANSWER });
      // The taught pair appears once, however many of its passages retrieval found.
      expect(json.sources.filter((s) => s.link === taught.source)).toHaveLength(1);

      const streamed = await t
        .post('/v1/serviceChat', { api_key: p.serverKey, question: 'resetting a password' })
        .set('Accept', 'text/event-stream')
        .buffer(true)
        .parse((res, done) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => done(null, body));
        })
        .expect(200);
      const events = parseSse(streamed.body as string);
      expect(events[0]?.chunk).toBe('<|source|>');
      expect((events[0]?.metadata as Array<{ link: string }>)[0]?.link).toBe(taught.source);
      expect(answerText(events).startsWith(ANSWER)).toBe(true);

      // What was stored cites it too (the conversation view and the gaps read it).
      const stored = await t.query<{ sources: string }>('SELECT sources FROM messages WHERE id = ?', [
        json.message_id,
      ]);
      expect(JSON.parse(stored[0]!.sources)[0]).toMatchObject({ source: taught.source });
    });

    it('does not put the taught answer first on a weak match', async () => {
      const p = await projectWithDocs('teach-weak');
      const taught = (
        await call('post', `/admin/v1/projects/${p.id}/taught`, {
          question: QUESTION,
          answer: ANSWER,
        }).expect(201)
      ).body;
      // Shares "reset" with the taught question but asks about logging: overlap 1/3 < 0.6.
      const weak = await chat(p, 'How do I reset the log level?');
      expect(weak.sources[0]?.link).toBe('logging-guide');
      expect(weak.answer.text.startsWith('Logging is configured with the KBQA_LOG_LEVEL variable')).toBe(
        true,
      );
      // Shares both its words but asks about admin accounts (overlap 2/4): the pair may be
      // retrieved, but as an ordinary passage, not answered with verbatim as a taught answer.
      const near = await chat(p, 'reset the password of admin accounts');
      expect(near.answer.text.startsWith(`${ANSWER} [1]`)).toBe(false);
      // Nothing in common: the taught pair is not even among the sources.
      const other = await chat(p, 'How do I register a plugin?');
      expect(other.sources.map((s) => s.link)).not.toContain(taught.source);
      expect(other.answer.text).not.toContain('Security');
    });

    it('refuses bad pairs and answers 404 for unknown projects and pairs', async () => {
      const p = await t.createProject('teach-errors');
      for (const [body, error] of [
        [{ answer: 'a' }, 'question is required'],
        [{ question: 'q' }, 'answer is required'],
        [{ question: '  ', answer: 'a' }, 'question must not be blank'],
        [{ question: 'q', answer: 7 }, 'answer must be a string'],
        [{ question: 'q', answer: 'a', source: 'x' }, 'property source should not exist'],
      ] as const) {
        const res = await call('post', `/admin/v1/projects/${p.id}/taught`, body).expect(400);
        expect(res.body).toEqual({ error, code: 'BAD_REQUEST' });
      }
      const created = (
        await call('post', `/admin/v1/projects/${p.id}/taught`, { question: 'q?', answer: 'a.' }).expect(201)
      ).body;
      expect(
        (await call('patch', `/admin/v1/taught/${created.id}`, { answer: '' }).expect(400)).body.error,
      ).toBe('answer must not be blank');
      const missing = { error: 'taught answer 999999 does not exist', code: 'NOT_FOUND' };
      expect((await call('patch', '/admin/v1/taught/999999', { answer: 'x' }).expect(404)).body).toEqual(
        missing,
      );
      expect((await call('delete', '/admin/v1/taught/999999').expect(404)).body).toEqual(missing);
      for (const m of ['get', 'post'] as const) {
        const res = await call(
          m,
          '/admin/v1/projects/999999/taught',
          m === 'post' ? { question: 'q', answer: 'a' } : undefined,
        );
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('NOT_FOUND');
      }
    });
  });

  describe('conversations, analytics and gaps', () => {
    let p: TestProject;
    const ids = { good: 0, open: 0, bad: 0 };

    beforeAll(async () => {
      p = await projectWithDocs('analytics');
      // Rated good, then ended ten minutes after it started (moved back directly, for a known duration).
      ids.good = await newConversation(p);
      const good = await chat(p, 'How do I install the kbqa server?', ids.good);
      await rate(p, good.message_id, 1);
      await end(p, ids.good);
      // Both set here, in the stored form: SQLite's date arithmetic can be off by a millisecond.
      // Both on today's date whatever the hour, since the by-day checks count it as today's: in the
      // first ten minutes after midnight (UTC) the ten minutes are those after midnight.
      const endedAt = Math.max(Date.now() - 1000, Date.parse(`${today()}T00:00:00Z`) + 601_000);
      await t.query('UPDATE conversations SET created_at = ?, ended_at = ? WHERE id = ?', [
        timestampAt(endedAt - 600_000),
        timestampAt(endedAt),
        ids.good,
      ]);
      // Three wordings of a question the documentation does not cover, never rated, not ended.
      ids.open = await newConversation(p);
      await chat(p, 'How do I export invoices?', ids.open);
      await chat(p, 'how do I export  invoices?', ids.open);
      await chat(p, 'Exporting invoices to CSV', ids.open);
      // Covered, but rated bad.
      ids.bad = await newConversation(p);
      const bad = await chat(p, 'How do I set the log level?', ids.bad);
      await rate(p, bad.message_id, -1);
    });

    it('lists conversations newest first with their counts, by rating and by day', async () => {
      const list = await call('get', `/admin/v1/projects/${p.id}/conversations`).expect(200);
      expect(list.body.total).toBe(3);
      expect(list.body.conversations.map((c: { id: number }) => c.id)).toEqual([ids.bad, ids.open, ids.good]);
      expect(list.body.conversations[1]).toEqual({
        id: ids.open,
        created_at: expect.stringMatching(ISO),
        ended_at: null,
        messages: 6,
        first_question: 'How do I export invoices?',
        good: 0,
        bad: 0,
      });
      expect(list.body.conversations[2]).toMatchObject({
        id: ids.good,
        ended_at: expect.stringMatching(ISO),
        messages: 2,
        good: 1,
        bad: 0,
      });
      const by = async (qs: string) =>
        (
          await call('get', `/admin/v1/projects/${p.id}/conversations?${qs}`).expect(200)
        ).body.conversations.map((c: { id: number }) => c.id);
      expect(await by('rating=good')).toEqual([ids.good]);
      expect(await by('rating=bad')).toEqual([ids.bad]);
      expect(await by('rating=unrated')).toEqual([ids.open]);
      expect(await by(`from=${today()}&to=${today()}`)).toHaveLength(3);
      expect(await by(`from=${dayAfter(today(), 1)}`)).toEqual([]);
      expect(await by(`to=${dayAfter(today(), -1)}`)).toEqual([]);
      expect(await by('limit=1&offset=1')).toEqual([ids.open]);
    });

    it('shows a conversation with its messages, sources and ratings', async () => {
      const res = await call('get', `/admin/v1/conversations/${ids.good}`).expect(200);
      expect(res.body).toEqual({
        id: ids.good,
        project_id: p.id,
        created_at: expect.stringMatching(ISO),
        ended_at: expect.stringMatching(ISO),
        messages: [
          {
            id: expect.any(Number),
            role: 'Human',
            text: 'How do I install the kbqa server?',
            sources: [],
            rating: 0,
            created_at: expect.stringMatching(ISO),
          },
          {
            id: expect.any(Number),
            role: 'AI',
            text: expect.stringContaining('pnpm install'),
            sources: expect.arrayContaining([{ link: 'install-guide', relevance_score: expect.any(Number) }]),
            rating: 1,
            created_at: expect.stringMatching(ISO),
          },
        ],
      });
      expect(Date.parse(res.body.ended_at) - Date.parse(res.body.created_at)).toBe(600_000);
    });

    it('refuses bad filters and answers 404 for unknown projects and conversations', async () => {
      for (const [qs, error] of [
        ['rating=meh', 'rating must be "good", "bad" or "unrated"'],
        ['from=2026-13-01', 'from must be a date as YYYY-MM-DD'],
        ['from=2026-02-02&to=2026-02-01', 'from must not be after to'],
        ['limit=501', 'limit must be an integer from 1 to 500'],
      ]) {
        const res = await call('get', `/admin/v1/projects/${p.id}/conversations?${qs}`).expect(400);
        expect(res.body).toEqual({ error, code: 'BAD_REQUEST' });
      }
      expect((await call('get', '/admin/v1/projects/999999/conversations').expect(404)).body.code).toBe(
        'NOT_FOUND',
      );
      expect((await call('get', '/admin/v1/conversations/999999').expect(404)).body).toEqual({
        error: 'conversation 999999 does not exist',
        code: 'NOT_FOUND',
      });
    });

    it('counts questions per day, ratings and durations', async () => {
      const res = await call('get', `/admin/v1/projects/${p.id}/analytics`).expect(200);
      const from = dayAfter(today(), -29);
      expect(res.body.from).toBe(from);
      expect(res.body.to).toBe(today());
      expect(res.body.questions_per_day).toHaveLength(30);
      expect(res.body.questions_per_day[0]).toEqual({ day: from, questions: 0 });
      expect(res.body.questions_per_day[29]).toEqual({ day: today(), questions: 5 });
      expect(res.body.ratings).toEqual({
        answers: 5,
        good: 1,
        bad: 1,
        unrated: 3,
        good_share: 0.2,
        bad_share: 0.2,
      });
      expect(res.body.durations).toEqual({
        ended: 1,
        median_seconds: 600,
        mean_seconds: 600,
        buckets: [
          { label: '<1 min', count: 0 },
          { label: '1–5 min', count: 0 },
          { label: '5–15 min', count: 1 },
          { label: '15–60 min', count: 0 },
          { label: '>1 h', count: 0 },
        ],
      });
      const yesterday = dayAfter(today(), -1);
      const before = await call(
        'get',
        `/admin/v1/projects/${p.id}/analytics?from=${yesterday}&to=${yesterday}`,
      ).expect(200);
      expect(before.body).toMatchObject({
        questions_per_day: [{ day: yesterday, questions: 0 }],
        ratings: { answers: 0, good_share: 0, bad_share: 0 },
        durations: { ended: 0, median_seconds: null, mean_seconds: null },
      });
    });

    it('groups the documentation gaps by wording, with counts and examples', async () => {
      const res = await call('get', `/admin/v1/projects/${p.id}/gaps`).expect(200);
      expect(res.body).toEqual({
        gaps: [
          {
            question: 'How do I export invoices?',
            count: 3,
            no_source: 3,
            rated_bad: 0,
            examples: ['How do I export invoices?', 'Exporting invoices to CSV'],
            last_asked: expect.stringMatching(ISO),
          },
          {
            question: 'How do I set the log level?',
            count: 1,
            no_source: 0,
            rated_bad: 1,
            examples: ['How do I set the log level?'],
            last_asked: expect.stringMatching(ISO),
          },
        ],
      });
      const empty = await call('get', `/admin/v1/projects/${p.id}/gaps?to=${dayAfter(today(), -1)}`).expect(
        200,
      );
      expect(empty.body).toEqual({ gaps: [] });
    });

    it('refuses bad ranges and answers 404 for an unknown project', async () => {
      for (const path of ['analytics', 'gaps']) {
        for (const [qs, error] of [
          ['from=2026-02-30', 'from must be a date as YYYY-MM-DD'],
          ['from=2026-02-02&to=2026-02-01', 'from must not be after to'],
          ['from=2020-01-01&to=2026-01-01', 'the range must be at most 731 days'],
          ['rating=good', 'property rating should not exist'],
        ]) {
          const res = await call('get', `/admin/v1/projects/${p.id}/${path}?${qs}`).expect(400);
          expect(res.body).toEqual({ error, code: 'BAD_REQUEST' });
        }
        expect((await call('get', `/admin/v1/projects/999999/${path}`).expect(404)).body.code).toBe(
          'NOT_FOUND',
        );
      }
    });
  });
});
