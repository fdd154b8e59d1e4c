import { readdirSync } from 'node:fs';
import { ANSWER_FLOOR } from '@kbqa/core';
import { DOCS_CORPUS_DIR, readDocsCorpusFile } from '@kbqa/core/testing';
import { startTestApp, type TestApp, type TestProject } from './helpers';

const DOCS = [
  {
    source: 'cors-guide',
    content:
      '# CORS\n\nEnable CORS by registering the cors plugin. Its origin option takes the allowed origin, or a list of them.',
  },
  {
    source: 'graphql-guide',
    content:
      '# GraphQL enums\n\nAn enum restricts a field to one of a fixed set of values, for example the origin of an order.',
  },
  {
    source: 'acme-guide',
    content:
      '# Acme server\n\n## Install\n\nInstall Acme with npm install acme-server and start it with acme start.\n\n## Requirements\n\nAcme needs at least 512 MB of memory and one CPU core.',
  },
  {
    source: 'passport-guide',
    content:
      '# Passport\n\nPassport strategies restrict routes to logged-in users; one strategy per login provider.',
  },
];

interface ChatBody {
  answer: { text: string };
  sources: Array<{ link: string; relevance_score: number }>;
}

describe('Follow-up questions without a model (e2e)', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    t = await startTestApp();
    p = await t.createProject('follow-ups');
    const res = await t.post('/v1/ingestDocuments', { api_key: p.serverKey, documents: DOCS }).expect(200);
    await t.waitForTask(res.body.task_id);
  });
  afterAll(() => t.close());

  const chat = async (question: string, history: Array<{ prompt: string; response: string }> = []) =>
    (
      await t
        .post('/v1/serviceChat', { api_key: p.serverKey, question, history, shouldStream: false })
        .expect(200)
    ).body as ChatBody;

  it('keeps the topic of the conversation: the CORS page comes first for "and how do I restrict it to one origin?"', async () => {
    const first = await chat('How do I enable CORS?');
    expect(first.sources[0]?.link).toBe('cors-guide');
    const followUp = await chat('and how do I restrict it to one origin?', [
      { prompt: 'How do I enable CORS?', response: first.answer.text },
    ]);
    expect(followUp.sources[0]?.link).toBe('cors-guide');
  });

  it('answers the follow-up itself, with the earlier question as context only: memory, not the install step', async () => {
    const first = await chat('How do I install Acme?');
    expect(first.answer.text).toContain('npm install acme-server');
    const followUp = await chat('And how much memory does it need?', [
      { prompt: 'How do I install Acme?', response: first.answer.text },
    ]);
    expect(followUp.sources[0]?.link).toBe('acme-guide');
    expect(followUp.answer.text).toMatch(/^Acme needs at least 512 MB of memory/);
  });

  it('lets a follow-up change the topic', async () => {
    const reply = await chat('and what about Passport strategies?', [
      { prompt: 'How do I enable CORS?', response: 'Register the cors plugin [1].' },
    ]);
    expect(reply.sources[0]?.link).toBe('passport-guide');
  });

  it('scores the answering passage above the answer floor and an unrelated question below it', async () => {
    const answer = await chat('How do I enable CORS?');
    expect(answer.sources[0]!.relevance_score).toBeGreaterThanOrEqual(ANSWER_FLOOR);
    const unrelated = await chat('How do I restrict a dishwasher to one cycle?');
    for (const s of unrelated.sources) expect(s.relevance_score).toBeLessThan(ANSWER_FLOOR);
  });
});

describe('Follow-ups that name no subject, on the fixture docs (e2e)', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    t = await startTestApp();
    p = await t.createProject('follow-ups-docs');
    const pages = readdirSync(DOCS_CORPUS_DIR, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.md'),
    );
    const documents = pages.map((page) => ({ source: page, content: readDocsCorpusFile(page) }));
    const res = await t.post('/v1/ingestDocuments', { api_key: p.serverKey, documents }).expect(200);
    await t.waitForTask(res.body.task_id);
  });
  afterAll(() => t.close());

  /** Asks `first`, then `follow` with the first turn and its actual answer as history. */
  const conversation = async (first: string, follow: string) => {
    const ask = async (question: string, history: Array<{ prompt: string; response: string }>) =>
      (
        await t
          .post('/v1/serviceChat', { api_key: p.serverKey, question, history, shouldStream: false })
          .expect(200)
      ).body as ChatBody;
    const firstReply = await ask(first, []);
    return ask(follow, [{ prompt: first, response: firstReply.answer.text }]);
  };

  it('answers "can I turn it off?" about the option asked about before, not about logging being off', async () => {
    const reply = await conversation('What does requestTimeout do?', 'can I turn it off?');
    expect(reply.sources[0]?.link).toBe('reference/server.md');
    expect(reply.answer.text).toContain('0 means none');
  });

  it('takes the previous turn from the stored conversation when the request sends no history', async () => {
    const { conversation_id } = (await t.post('/v1/newConversation', { api_key: p.serverKey }).expect(200))
      .body as { conversation_id: number };
    const ask = async (question: string) =>
      (
        await t
          .post('/v1/serviceChat', { api_key: p.serverKey, question, conversation_id, shouldStream: false })
          .expect(200)
      ).body as ChatBody;
    await ask('What does requestTimeout do?');
    const reply = await ask('can I turn it off?');
    expect(reply.sources[0]?.link).toBe('reference/server.md');
    expect(reply.answer.text).toContain('0 means none');
  });

  it('answers "and for the reply?" about decorating the reply, not the request', async () => {
    const reply = await conversation('How do I add a property to every request?', 'and for the reply?');
    expect(reply.sources[0]?.link).toBe('reference/decorators.md');
    expect(reply.answer.text).toContain('decorateReply');
    expect(reply.answer.text).not.toContain('decorateRequest');
  });

  it('answers "what about the default?" for the option asked about before', async () => {
    const reply = await conversation(
      'What does the timeout option of a plugin do?',
      'what about the default?',
    );
    expect(reply.sources[0]?.link).toBe('reference/plugins.md');
    expect(reply.answer.text).toContain('10,000');
  });

  it('answers "can I use it in a plugin?" about the hook asked about before', async () => {
    const reply = await conversation('What does the onClose hook do?', 'can I use it in a plugin?');
    expect(reply.sources[0]?.link).toBe('reference/hooks.md');
    expect(reply.answer.text).toContain('onClose');
  });
});
