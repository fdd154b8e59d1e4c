import type { AddressInfo } from 'node:net';
import { readDocsCorpusFile } from '@kbqa/core/testing';
import request from 'supertest';
import { startFakeLlm, type FakeLlm } from './fake-llm';
import { startTestApp, type TestApp, type TestProject } from './helpers';
import { answerText, parseSse } from './sse';

describe('Chat with an OpenAI-compatible model (e2e, fake LLM on 127.0.0.1)', () => {
  let llm: FakeLlm;
  let t: TestApp;
  let p: TestProject;

  beforeAll(async () => {
    llm = await startFakeLlm();
    t = await startTestApp({
      KBQA_LLM: 'openai',
      KBQA_LLM_BASE_URL: llm.baseUrl,
      KBQA_LLM_MODEL: 'fake-model',
      KBQA_LLM_API_KEY: 'sk-test-secret',
      KBQA_LLM_IDLE_TIMEOUT_MS: '300',
    });
    p = await t.createProject('llm');
    const documents = ['reference/decorators.md', 'reference/hooks.md'].map((page) => ({
      source: page,
      content: readDocsCorpusFile(page),
    }));
    const res = await t.post('/v1/ingestDocuments', { api_key: p.serverKey, documents });
    await t.waitForTask(res.body.task_id);
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });
  beforeEach(() => {
    llm.requests.length = 0;
  });

  const lastStreamed = () => llm.requests.filter((r) => r.body.stream).pop()!;

  it('streams the model answer after the sources, dropping citations of sources it was not given', async () => {
    await t.projects.setSystemPrompt(p.id, 'You are the Tidepool docs assistant.');
    llm.script = { kind: 'answer', pieces: ['Use ', '`app.decorate()` [', '1]', '. See also [', '9].'] };
    const res = await request(t.http)
      .post('/v1/serviceChat')
      .set('Accept', 'text/event-stream')
      .send({
        api_key: p.serverKey,
        question: 'How do I decorate the instance?',
        history: [],
        temperature: 0.3,
        additional_context: 'The user runs Tidepool 3.',
      })
      .expect(200);
    const events = parseSse(res.text);
    expect(events[0]!.chunk).toBe('<|source|>');
    expect(events[events.length - 1]!.chunk).toBe('<|message_id|>');
    expect(answerText(events)).toBe('Use `app.decorate()` [1]. See also.');

    const sent = lastStreamed();
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test-secret');
    expect(sent.body.model).toBe('fake-model');
    expect(sent.body.temperature).toBe(0.3);
    const prompt = sent.body.messages.map((m) => m.content).join('\n');
    expect(prompt).toContain('You are the Tidepool docs assistant.');
    expect(prompt).toContain('The user runs Tidepool 3.');
    expect(prompt).toMatch(/\[1\][^\n]*reference\/decorators\.md/);
    await t.projects.setSystemPrompt(p.id, null);
  });

  it('rewrites a follow-up into a standalone question before retrieval', async () => {
    llm.reply = () => 'How do decorators add properties to the Tidepool instance?';
    llm.script = { kind: 'answer', pieces: ['With decorate [1].'] };
    const res = await t
      .post('/v1/serviceChat', {
        api_key: p.serverKey,
        question: 'and what about that one?',
        history: [{ prompt: 'What is a decorator?', response: 'A way to extend the instance.' }],
        shouldStream: false,
      })
      .expect(200);
    const rewrite = llm.requests.find((r) => !r.body.stream)!;
    expect(JSON.stringify(rewrite.body.messages)).toContain('What is a decorator?');
    expect(res.body.sources[0].link).toBe('reference/decorators.md');
    expect(res.body.answer.text).toBe('With decorate [1].');
  });

  it('turns an upstream error into an error event on the stream and a 502 in JSON', async () => {
    llm.script = { kind: 'error', status: 500 };
    const streamed = await request(t.http)
      .post('/v1/serviceChat')
      .send({ api_key: p.serverKey, question: 'hooks', history: [] })
      .expect(200);
    const events = parseSse(streamed.text);
    const error = events.find((e) => e.chunk === '<|error|>');
    expect(error?.metadata).toEqual({ error: expect.stringContaining('500'), code: 'LLM_ERROR' });
    expect(JSON.stringify(error)).not.toContain('sk-test-secret');
    expect(events[events.length - 1]!.chunk).toBe('<|message_id|>');

    const json = await t
      .post('/v1/serviceChat', { api_key: p.serverKey, question: 'hooks', history: [], shouldStream: false })
      .expect(502);
    expect(json.body).toEqual({ error: expect.any(String), code: 'LLM_ERROR' });
  });

  it('ends a stalled stream with a timeout error instead of hanging', async () => {
    llm.script = { kind: 'stall', pieces: ['Partial answer'] };
    const res = await request(t.http)
      .post('/v1/serviceChat')
      .send({ api_key: p.serverKey, question: 'hooks', history: [] })
      .expect(200);
    const events = parseSse(res.text);
    expect(answerText(events)).toBe('Partial answer');
    expect(events.find((e) => e.chunk === '<|error|>')?.metadata).toEqual({
      error: expect.any(String),
      code: 'TIMEOUT',
    });
    const id = events[events.length - 1]!.metadata;
    expect(await t.query('SELECT text, complete FROM messages WHERE id = ?', [id])).toEqual([
      { text: 'Partial answer', complete: 0 },
    ]);
  });

  it('stops generating when the client disconnects and stores the partial answer', async () => {
    llm.script = { kind: 'answer', pieces: Array.from({ length: 200 }, (_, i) => `w${i} `), delayMs: 20 };
    const server = t.app.getHttpServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const controller = new AbortController();
      const res = await fetch(`http://127.0.0.1:${port}/v1/serviceChat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ api_key: p.serverKey, question: 'hooks', history: [] }),
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      let seen = '';
      while (!seen.includes(' w3')) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`stream ended early: ${seen}`);
        seen += new TextDecoder().decode(value);
      }
      controller.abort();
      await llm.clientGone;
      let rows: Array<{ text: string; complete: number }> = [];
      for (let i = 0; i < 200 && rows.length === 0; i++) {
        rows = await t.query(
          "SELECT text, complete FROM messages WHERE sender = 'AI' AND text LIKE 'w0 w1 w2 w3%' ORDER BY created_at DESC LIMIT 1",
        );
        if (rows.length === 0) await new Promise((r) => setTimeout(r, 20));
      }
      expect(rows[0]!.complete).toBe(0);
      expect(rows[0]!.text.split(' ').length).toBeLessThan(200);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('writes the summary chunk of options.summarize with the model', async () => {
    llm.reply = (req) =>
      JSON.stringify(req.body.messages).includes('Summar') ||
      JSON.stringify(req.body.messages).includes('summar')
        ? 'A model-written summary of the hooks page.'
        : 'x';
    const res = await t.post('/v1/ingestDocuments', {
      api_key: p.serverKey,
      documents: [
        {
          source: 'summarized',
          content: readDocsCorpusFile('reference/hooks.md'),
          options: { summarize: true, summarize_max_chars: 200 },
        },
      ],
    });
    const done = await t.waitForTask(res.body.task_id);
    expect(done.result).toMatchObject({ error: '', project_id: p.id, success: true, skipped: 0 });
    const rows = await t.query(
      "SELECT c.content FROM chunks c JOIN sources s ON s.id = c.source_id WHERE s.source = 'summarized' AND c.kind = 'summary'",
    );
    expect(rows).toEqual([{ content: 'A model-written summary of the hooks page.' }]);
  });
});
