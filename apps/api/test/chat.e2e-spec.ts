import { ANSWER_FLOOR } from '@kbqa/core';
import { readDocsCorpusFile } from '@kbqa/core/testing';
import request from 'supertest';
import { startTestApp, type TestApp, type TestProject } from './helpers';
import { answerText, parseSse } from './sse';

// Pages of the repository's docs corpus (fixtures/docs-corpus); each question below names the page that answers it.
const PAGES = ['reference/hooks.md', 'reference/decorators.md', 'reference/logging.md', 'guides/testing.md'];
const MICROS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/;

describe('Chat, conversations, messages (e2e)', () => {
  let t: TestApp;
  let p: TestProject;
  let other: TestProject;

  beforeAll(async () => {
    t = await startTestApp();
    p = await t.createProject('chat');
    other = await t.createProject('other');
    const documents = PAGES.map((page, i) => ({
      source: page,
      content: readDocsCorpusFile(page),
      metadata: { version: i + 1, section: page.split('/')[0]! },
    }));
    const res = await t.post('/v1/ingestDocuments', { api_key: p.serverKey, documents }).expect(200);
    await t.waitForTask(res.body.task_id);
  });
  afterAll(() => t.close());

  const chat = (body: Record<string, unknown>, path = '/v1/serviceChat') =>
    t.post(path, { api_key: p.serverKey, history: [], ...body });

  describe('newConversation and endConversation', () => {
    it('creates a conversation with an integer id, with a server or an anon key', async () => {
      const a = await t.post('/v1/newConversation', { api_key: p.serverKey }).expect(200);
      expect(Number.isInteger(a.body.conversation_id)).toBe(true);
      const b = await t.post('/v1/newConversation', { anon_key: p.anonKey }).expect(200);
      expect(Number.isInteger(b.body.conversation_id)).toBe(true);
      expect(b.body.conversation_id).not.toBe(a.body.conversation_id);
    });

    it('gives conversations random ids from 2^32, not sequential ones', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 12; i++) {
        const key = i % 2 ? { anon_key: p.anonKey } : { api_key: p.serverKey };
        ids.push((await t.post('/v1/newConversation', key).expect(200)).body.conversation_id as number);
      }
      for (const id of ids) {
        expect(Number.isSafeInteger(id)).toBe(true);
        expect(id).toBeGreaterThanOrEqual(2 ** 32);
      }
      expect(new Set(ids).size).toBe(ids.length);
      // Sequential ids would be in increasing order; 12 random ones are 1 time in 12!.
      expect([...ids].sort((a, b) => a - b)).not.toEqual(ids);
    });

    it('ends a conversation with a plain-text confirmation, after which chat is refused', async () => {
      const { body } = await t.post('/v1/newConversation', { api_key: p.serverKey });
      const res = await t
        .post('/v1/endConversation', { api_key: p.serverKey, conversation_id: body.conversation_id })
        .expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.text).toBe('Conversation has ended.');
      const refused = await chat({
        question: 'hooks?',
        conversation_id: body.conversation_id,
        shouldStream: false,
      }).expect(400);
      expect(refused.body.code).toBe('CONVERSATION_ENDED');
    });

    it("answers 404 for an unknown or another project's conversation", async () => {
      await t.post('/v1/endConversation', { api_key: p.serverKey, conversation_id: 999999 }).expect(404);
      const { body } = await t.post('/v1/newConversation', { api_key: other.serverKey });
      const res = await t
        .post('/v1/endConversation', { api_key: p.serverKey, conversation_id: body.conversation_id })
        .expect(404);
      expect(res.body).toEqual({ error: expect.any(String), code: 'NOT_FOUND' });
    });
  });

  describe('serviceChat (JSON)', () => {
    it('answers with cited text, integer source ids, relevance scores and tools_used', async () => {
      const { body: conv } = await t.post('/v1/newConversation', { api_key: p.serverKey });
      const res = await chat({
        question: 'How do I add a property to the app instance with a decorator?',
        conversation_id: conv.conversation_id,
        shouldStream: false,
      }).expect(200);
      expect(res.body).toEqual({
        answer: { text: expect.stringMatching(/\[1\]/) },
        message_id: expect.any(Number),
        sources: expect.any(Array),
        tools_used: [],
      });
      const first = res.body.sources[0];
      expect(first).toEqual({
        id: expect.any(Number),
        content: expect.any(String),
        link: 'reference/decorators.md',
        relevance_score: expect.any(Number),
      });
      // Scores are in [0, 1] and never rise down the list; the page that answers clears the floor.
      const scores = (res.body.sources as Array<{ relevance_score: number }>).map((s) => s.relevance_score);
      expect(scores[0]).toBeGreaterThanOrEqual(ANSWER_FLOOR);
      expect(scores[0]).toBeLessThanOrEqual(1);
      expect(scores[scores.length - 1]).toBeGreaterThanOrEqual(0);
      expect(scores).toEqual([...scores].sort((x, y) => y - x));
      const messages = await t
        .post('/v1/messages/byConversationId', {
          api_key: p.serverKey,
          conversation_id: String(conv.conversation_id),
        })
        .expect(200);
      expect(messages.body).toEqual([
        {
          message_id: expect.any(Number),
          conversation_id: conv.conversation_id,
          sender: 'Human',
          timestamp: expect.stringMatching(MICROS),
          message: 'How do I add a property to the app instance with a decorator?',
          rating_value: 0,
          tools_used: [],
        },
        {
          message_id: res.body.message_id,
          conversation_id: conv.conversation_id,
          sender: 'AI',
          timestamp: expect.stringMatching(MICROS),
          message: res.body.answer.text,
          rating_value: 0,
          tools_used: [],
        },
      ]);
    });

    it('gives messages random ids, listed in the order they were written', async () => {
      const { body: conv } = await t.post('/v1/newConversation', { api_key: p.serverKey });
      const questions = ['decorators', 'hooks?', 'logging', 'testing with inject'];
      const answers: number[] = [];
      for (const question of questions) {
        const res = await chat({
          question,
          conversation_id: conv.conversation_id,
          shouldStream: false,
        }).expect(200);
        answers.push(res.body.message_id as number);
      }
      const messages = (
        await t
          .post('/v1/messages/byConversationId', {
            api_key: p.serverKey,
            conversation_id: conv.conversation_id,
          })
          .expect(200)
      ).body as Array<{ message_id: number; sender: string; message: string; timestamp: string }>;
      expect(messages.map((m) => [m.sender, m.sender === 'Human' ? m.message : m.message_id])).toEqual(
        questions.flatMap((q, i) => [
          ['Human', q],
          ['AI', answers[i]],
        ]),
      );
      const ids = messages.map((m) => m.message_id);
      for (const id of ids) expect(id).toBeGreaterThanOrEqual(2 ** 32);
      expect(new Set(ids).size).toBe(ids.length);
      // In the order written (timestamps), which random ids are not: 1 time in 8!.
      const times = messages.map((m) => m.timestamp);
      expect([...times].sort()).toEqual(times);
      expect([...ids].sort((a, b) => a - b)).not.toEqual(ids);
    });

    it('accepts conversation_id as an integer, a float with zero fraction or a string', async () => {
      const { body: conv } = await t.post('/v1/newConversation', { api_key: p.serverKey });
      for (const id of [conv.conversation_id, `${conv.conversation_id}`, conv.conversation_id + 0.0]) {
        await chat({ question: 'logging', conversation_id: id, shouldStream: false }).expect(200);
      }
    });

    it('creates a conversation for a chat without conversation_id and keeps tracking.roleInfo', async () => {
      const res = await chat({
        question: 'What does the onRequest hook do?',
        shouldStream: false,
        tracking: { roleInfo: 'admin' },
      }).expect(200);
      expect(res.body.sources[0].link).toBe('reference/hooks.md');
      const rows = await t.query(
        'SELECT c.id, c.role_info FROM conversations c JOIN messages m ON m.conversation_id = c.id WHERE m.id = ?',
        [res.body.message_id],
      );
      expect(rows).toEqual([{ id: expect.any(Number), role_info: 'admin' }]);
    });

    it('drops every source at relevance_threshold 1 and says the docs do not cover it', async () => {
      const res = await chat({
        question: 'How do hooks work?',
        relevance_threshold: 1,
        shouldStream: false,
      }).expect(200);
      expect(res.body.sources).toEqual([]);
      expect(res.body.answer.text).toMatch(/couldn't find|not cover|no information/i);
    });

    it('says the docs do not cover a question naming what no page of the project has, and lists the closest', async () => {
      const covered = await chat({ question: 'How do I write logs in a test?', shouldStream: false }).expect(
        200,
      );
      expect(covered.body.answer.text).not.toMatch(/couldn't find/);
      // Same words, plus a product no page names: the passages about logs and tests do not answer it.
      const res = await chat({
        question: 'How do I write logs in a test with PM2?',
        shouldStream: false,
      }).expect(200);
      expect(res.body.answer.text).toMatch(
        /^I couldn't find this in the documentation\.\n\nYou may want to read: /,
      );
      expect(res.body.sources.length).toBeGreaterThan(0);
    });

    it('honours num_chunks and the where filter inside retrieval', async () => {
      const three = await chat({
        question: 'tidepool',
        retriever_options: { num_chunks: 3 },
        shouldStream: false,
      }).expect(200);
      expect(three.body.sources).toHaveLength(3);
      const filtered = await chat({
        question: 'tidepool',
        where: { version: { $gte: 3 } },
        retriever_options: { num_chunks: 8 },
        shouldStream: false,
      }).expect(200);
      expect(filtered.body.sources.length).toBe(8);
      for (const s of filtered.body.sources)
        expect(['reference/logging.md', 'guides/testing.md']).toContain(s.link);
      const byName = await chat({
        question: 'tidepool',
        where: { section: { $eq: 'guides' } },
        shouldStream: false,
      }).expect(200);
      expect(byName.body.sources.length).toBeGreaterThan(0);
      for (const s of byName.body.sources) expect(s.link).toBe('guides/testing.md');
      const notGuides = await chat({
        question: 'tidepool',
        where: { section: { $nin: ['guides'] } },
        retriever_options: { num_chunks: 50 },
        shouldStream: false,
      }).expect(200);
      expect(notGuides.body.sources.length).toBeGreaterThan(0);
      for (const s of notGuides.body.sources) expect(s.link).not.toBe('guides/testing.md');
    });

    it.each([
      ['temperature above 1', { temperature: 1.5 }, /temperature/],
      ['a negative relevance_threshold', { relevance_threshold: -0.1 }, /relevance_threshold/],
      ['num_chunks of 0', { retriever_options: { num_chunks: 0 } }, /num_chunks/],
      ['num_chunks above 50', { retriever_options: { num_chunks: 51 } }, /num_chunks/],
      ['an unknown where operator', { where: { version: { $regex: 'x' } } }, /unknown operator/],
      ['an and/or combination', { where: { $or: [{ version: { $eq: 1 } }] } }, /not supported/],
      ['a string for $gt', { where: { version: { $gt: 'x' } } }, /must be a number/],
      [
        'an $in list over the limit',
        { where: { version: { $in: Array.from({ length: 32_767 }, (_, i) => i) } } },
        /\$in may hold at most 1000 values/,
      ],
      ['a missing question', { question: undefined }, /question/],
      ['history of the wrong type', { history: 'none' }, /history/],
      ['a malformed history entry', { history: [{ prompt: 1 }] }, /prompt/],
      ['a bad conversation_id', { conversation_id: 'abc' }, /conversation_id/],
      ['an unknown field', { colour: 'red' }, /colour should not exist/],
    ])('refuses %s with 400', async (_name, extra, message) => {
      const res = await chat({ question: 'hooks', shouldStream: false, ...extra }).expect(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.error).toMatch(message);
    });

    it("answers 404 for an unknown or another project's conversation_id", async () => {
      await chat({ question: 'hooks', conversation_id: 987654, shouldStream: false }).expect(404);
      const { body } = await t.post('/v1/newConversation', { api_key: other.serverKey });
      await chat({ question: 'hooks', conversation_id: body.conversation_id, shouldStream: false }).expect(
        404,
      );
    });

    it('does not mix projects: another project has no sources to cite', async () => {
      const res = await t
        .post('/v1/serviceChat', {
          api_key: other.serverKey,
          question: 'decorators',
          history: [],
          shouldStream: false,
        })
        .expect(200);
      expect(res.body.sources).toEqual([]);
    });
  });

  describe('serviceChat (streaming)', () => {
    it('streams the sources first, the answer in pieces, and the message id last', async () => {
      const res = await request(t.http)
        .post('/v1/serviceChat')
        .set('Accept', 'text/event-stream')
        .send({ api_key: p.serverKey, question: 'How can I log requests with tidelog?', history: [] })
        .expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(res.headers['x-accel-buffering']).toBe('no');
      expect(res.headers['content-encoding']).toBeUndefined();
      const events = parseSse(res.text);
      expect(events[0]!.chunk).toBe('<|source|>');
      const sources = events[0]!.metadata as Array<Record<string, unknown>>;
      expect(sources[0]!.link).toBe('reference/logging.md');
      for (const s of sources)
        expect(s).toEqual({ id: expect.any(String), content: expect.any(String), link: expect.any(String) });
      const last = events[events.length - 1]!;
      expect(last.chunk).toBe('<|message_id|>');
      expect(Number.isInteger(last.metadata)).toBe(true);
      expect(events.length).toBeGreaterThan(3);
      const text = answerText(events);
      const rows = await t.query('SELECT text, complete FROM messages WHERE id = ?', [last.metadata]);
      expect(rows).toEqual([{ text, complete: 1 }]);
    });

    it('answers under /v0/ and as mendableChat, with an anon key', async () => {
      for (const path of ['/v0/serviceChat', '/v1/mendableChat', '/v0/mendableChat']) {
        const res = await request(t.http)
          .post(path)
          .send({ anon_key: p.anonKey, question: 'decorators', history: [] })
          .expect(200);
        expect(parseSse(res.text)[0]!.chunk).toBe('<|source|>');
      }
    });
  });

  describe('rateMessage', () => {
    let aiMessageId: number;
    let humanMessageId: number;
    beforeAll(async () => {
      const { body: conv } = await t.post('/v1/newConversation', { api_key: p.serverKey });
      const res = await chat({
        question: 'decorators',
        conversation_id: conv.conversation_id,
        shouldStream: false,
      });
      aiMessageId = res.body.message_id;
      const messages = await t.post('/v1/messages/byConversationId', {
        api_key: p.serverKey,
        conversation_id: conv.conversation_id,
      });
      humanMessageId = messages.body[0].message_id;
    });

    it('rates an AI message (and clears it with 0), answering plain text', async () => {
      for (const [path, value] of [
        ['/v0/rateMessage', 1],
        ['/v1/rateMessage', -1],
        ['/v0/rateMessage', 0],
      ] as const) {
        const res = await t
          .post(path, { api_key: p.serverKey, message_id: aiMessageId, rating_value: value })
          .expect(200);
        expect(res.headers['content-type']).toMatch(/^text\/plain/);
        expect(res.text).toBe('Message rating updated');
      }
    });

    it("answers 500 PERMISSION_DENIED for a human, unknown or another project's message", async () => {
      for (const [key, id] of [
        [p.serverKey, humanMessageId],
        [p.serverKey, 999999],
        [other.serverKey, aiMessageId],
      ] as const) {
        const res = await t
          .post('/v0/rateMessage', { api_key: key, message_id: id, rating_value: 1 })
          .expect(500);
        expect(res.body).toEqual({
          error: 'Permission denied to rate this message',
          code: 'PERMISSION_DENIED',
        });
      }
    });

    it('refuses a missing key and a rating outside 1, 0, -1 with 400', async () => {
      await t.post('/v0/rateMessage', { message_id: aiMessageId, rating_value: 1 }).expect(400);
      const res = await t
        .post('/v0/rateMessage', { api_key: p.serverKey, message_id: aiMessageId, rating_value: 2 })
        .expect(400);
      expect(res.body.code).toBe('BAD_REQUEST');
    });
  });

  describe('anon keys and conversations they did not start', () => {
    const anonChat = (body: Record<string, unknown>) =>
      t.post('/v1/serviceChat', { anon_key: p.anonKey, history: [], shouldStream: false, ...body });
    const denied = { error: 'Permission denied to rate this message', code: 'PERMISSION_DENIED' };

    it('answers a server-key conversation to the anon key as one that does not exist', async () => {
      const { body: conv } = await t.post('/v1/newConversation', { api_key: p.serverKey }).expect(200);
      const id = conv.conversation_id as number;
      const answered = await chat({ question: 'decorators', conversation_id: id, shouldStream: false });
      const messageId = answered.body.message_id as number;
      const unknown = await t.post('/v1/endConversation', { anon_key: p.anonKey, conversation_id: 999999 });

      const ended = await t
        .post('/v1/endConversation', { anon_key: p.anonKey, conversation_id: id })
        .expect(404);
      expect(ended.body).toEqual({ error: `conversation ${id} not found`, code: 'NOT_FOUND' });
      expect(unknown.body).toEqual({ error: 'conversation 999999 not found', code: 'NOT_FOUND' });
      const rated = await t
        .post('/v1/rateMessage', { anon_key: p.anonKey, message_id: messageId, rating_value: -1 })
        .expect(500);
      expect(rated.body).toEqual(denied);
      const continued = await anonChat({ question: 'hooks?', conversation_id: id }).expect(404);
      expect(continued.body.code).toBe('NOT_FOUND');

      // Nothing of it changed: still open, unrated, two messages.
      const messages = await t
        .post('/v1/messages/byConversationId', { api_key: p.serverKey, conversation_id: id })
        .expect(200);
      expect(messages.body.map((m: { rating_value: number }) => m.rating_value)).toEqual([0, 0]);
      await t.post('/v1/endConversation', { api_key: p.serverKey, conversation_id: id }).expect(200);
    });

    it('lets the anon key chat into, rate and end a conversation an anon key started', async () => {
      const { body: conv } = await t.post('/v1/newConversation', { anon_key: p.anonKey }).expect(200);
      const id = conv.conversation_id as number;
      const answered = await anonChat({ question: 'decorators', conversation_id: id }).expect(200);
      await t
        .post('/v1/rateMessage', {
          anon_key: p.anonKey,
          message_id: answered.body.message_id,
          rating_value: 1,
        })
        .expect(200);
      await t.post('/v1/endConversation', { anon_key: p.anonKey, conversation_id: id }).expect(200);

      // A chat without conversation_id starts one the anon key may act on too.
      const started = await anonChat({ question: 'hooks?' }).expect(200);
      await t
        .post('/v1/rateMessage', {
          anon_key: p.anonKey,
          message_id: started.body.message_id,
          rating_value: 1,
        })
        .expect(200);
    });

    it('keeps the server key able to rate and end a conversation an anon key started', async () => {
      const { body: conv } = await t.post('/v1/newConversation', { anon_key: p.anonKey }).expect(200);
      const answered = await anonChat({ question: 'decorators', conversation_id: conv.conversation_id });
      await t
        .post('/v1/rateMessage', {
          api_key: p.serverKey,
          message_id: answered.body.message_id,
          rating_value: 1,
        })
        .expect(200);
      await t
        .post('/v1/endConversation', { api_key: p.serverKey, conversation_id: conv.conversation_id })
        .expect(200);
    });

    it("finds no other reader's conversation or message at the ids next to its own", async () => {
      // Two readers of the same site, both on the anon key, one chat each, one after the other.
      const mine = await anonChat({ question: 'decorators' }).expect(200);
      const theirs = await anonChat({ question: 'hooks?' }).expect(200);
      const conversationOf = async (messageId: number) =>
        (
          await t.query<{ conversation_id: number }>('SELECT conversation_id FROM messages WHERE id = ?', [
            messageId,
          ])
        )[0]!.conversation_id;
      const myConversation = await conversationOf(mine.body.message_id as number);
      const theirConversation = await conversationOf(theirs.body.message_id as number);

      for (const delta of [-2, -1, 1, 2]) {
        const guess = myConversation + delta;
        const ended = await t.post('/v1/endConversation', { anon_key: p.anonKey, conversation_id: guess });
        expect([ended.status, ended.body]).toEqual([
          404,
          { error: `conversation ${guess} not found`, code: 'NOT_FOUND' },
        ]);
      }
      for (const delta of [-3, -2, -1, 1, 2, 3]) {
        const guess = (mine.body.message_id as number) + delta;
        const rated = await t.post('/v1/rateMessage', {
          anon_key: p.anonKey,
          message_id: guess,
          rating_value: -1,
        });
        expect([rated.status, rated.body]).toEqual([500, denied]);
      }
      // The other reader's conversation is untouched: open, its answer unrated.
      const [row] = await t.query<{ ended_at: string | null; rating_value: number }>(
        'SELECT c.ended_at, m.rating_value FROM conversations c JOIN messages m ON m.conversation_id = c.id WHERE m.id = ?',
        [theirs.body.message_id],
      );
      expect(row).toEqual({ ended_at: null, rating_value: 0 });
      expect(theirConversation).not.toBe(myConversation);
    });

    it("answers another project's anon conversation to an anon key as one that does not exist", async () => {
      const { body: conv } = await t.post('/v1/newConversation', { anon_key: other.anonKey }).expect(200);
      await t
        .post('/v1/endConversation', { anon_key: p.anonKey, conversation_id: conv.conversation_id })
        .expect(404);
    });
  });

  describe('messages/byConversationId and getMessagesData', () => {
    it('refuses an anon key with 403 and another project with 404', async () => {
      const { body } = await t.post('/v1/newConversation', { api_key: p.serverKey });
      await t
        .post('/v1/messages/byConversationId', { api_key: p.anonKey, conversation_id: body.conversation_id })
        .expect(403);
      await t
        .post('/v1/messages/byConversationId', {
          api_key: other.serverKey,
          conversation_id: body.conversation_id,
        })
        .expect(404);
    });

    it('exports only when the project switch is on, filtered by rating and inclusive days', async () => {
      const off = await t.post('/v1/getMessagesData', { api_key: p.serverKey }).expect(400);
      expect(off.body.code).toBe('EXPORT_DISABLED');
      await t.projects.setExport(p.id, true);
      const { body: conv } = await t.post('/v1/newConversation', { api_key: p.serverKey });
      const rated = await chat({
        question: 'How do I test routes with inject?',
        conversation_id: conv.conversation_id,
        shouldStream: false,
      });
      expect(rated.body.sources[0].link).toBe('guides/testing.md');
      await t
        .post('/v0/rateMessage', {
          api_key: p.serverKey,
          message_id: rated.body.message_id,
          rating_value: -1,
        })
        .expect(200);

      const all = await t.post('/v1/getMessagesData', { api_key: p.serverKey }).expect(200);
      expect(all.body.length).toBeGreaterThan(1);
      const bad = await t.post('/v1/getMessagesData', { api_key: p.serverKey, rating_value: -1 }).expect(200);
      expect(bad.body).toEqual([
        {
          project_id: p.id,
          message_id: rated.body.message_id,
          conversation_id: conv.conversation_id,
          timestamp: expect.stringMatching(MICROS),
          human_query: 'How do I test routes with inject?',
          ai_response: rated.body.answer.text,
          tools_used: [],
        },
      ]);
      const today = new Date().toISOString().slice(0, 10);
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      const inclusive = await t
        .post('/v1/getMessagesData', { api_key: p.serverKey, start_date: today, end_date: today })
        .expect(200);
      expect(inclusive.body).toHaveLength(all.body.length);
      const future = await t
        .post('/v1/getMessagesData', { api_key: p.serverKey, start_date: tomorrow })
        .expect(200);
      expect(future.body).toEqual([]);
      await t.post('/v1/getMessagesData', { api_key: p.serverKey, start_date: '2024-02-30' }).expect(400);
      await t.post('/v1/getMessagesData', { api_key: p.anonKey }).expect(403);
      const other2 = await t.post('/v1/getMessagesData', { api_key: other.serverKey }).expect(400);
      expect(other2.body.code).toBe('EXPORT_DISABLED');
    });
  });
});
