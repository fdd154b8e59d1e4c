import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDocsCorpusFile, startServer, type TestServer } from '@kbqa/core/testing';
import { DEFAULT_LOCAL_MODEL } from '@kbqa/llm-local';
import { writeTinyGguf } from '@kbqa/llm-local/testing';
import request from 'supertest';
import { ToolsService } from '../src/tools/tools.service';
import { startTestApp, type TestApp, type TestProject } from './helpers';
import { answerText, parseSse } from './sse';

/** The local model's part of `/health`, once it has left the `loading` state. */
async function llmHealth(t: TestApp): Promise<Record<string, unknown>> {
  for (let i = 0; i < 500; i++) {
    const res = await request(t.http).get('/health').expect(200);
    const llm = res.body.llm as Record<string, unknown>;
    if (llm.state !== 'loading' && llm.state !== 'not-loaded') return llm;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the local model never finished loading');
}

async function ingest(t: TestApp, p: TestProject): Promise<void> {
  const documents = ['reference/decorators.md', 'reference/hooks.md'].map((page) => ({
    source: page,
    content: readDocsCorpusFile(page),
  }));
  const res = await t.post('/v1/ingestDocuments', { api_key: p.serverKey, documents });
  await t.waitForTask(res.body.task_id);
}

/** serviceChat with no history: over SSE when `stream`, else JSON (`shouldStream: false`). */
function ask(t: TestApp, key: string, question: string, stream: boolean) {
  const req = request(t.http).post('/v1/serviceChat');
  return (stream ? req.set('Accept', 'text/event-stream') : req).send({
    api_key: key,
    question,
    history: [],
    ...(stream ? {} : { shouldStream: false }),
  });
}

describe('Chat with a local GGUF model (e2e, tiny random-weight model)', () => {
  let dir: string;
  let t: TestApp;
  let p: TestProject;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kbqa-local-llm-'));
    const modelFile = await writeTinyGguf(dir);
    t = await startTestApp({
      KBQA_LLM: 'local',
      KBQA_LLM_MODEL_FILE: modelFile,
      KBQA_LLM_CONTEXT_TOKENS: '300',
      KBQA_LLM_MAX_TOKENS: '600',
      // One thread: on a shared two-core host llama.cpp's threads otherwise wait for each other.
      KBQA_LLM_THREADS: '1',
    });
    p = await t.createProject('local');
    await ingest(t, p);
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports the loaded model in /health', async () => {
    expect(await llmHealth(t)).toEqual({
      model: DEFAULT_LOCAL_MODEL,
      state: 'ready',
      running: 0,
      waiting: 0,
      sequences: expect.any(Number),
    });
    // KBQA_LLM_SEQUENCES unset: one sequence per two cores (memory is plentiful for the tiny model).
    const { sequences } = await llmHealth(t);
    expect(sequences).toBe(Math.min(16, Math.max(1, Math.floor(availableParallelism() / 2))));
  });

  it('streams the model tokens over SSE after the sources', async () => {
    const res = await ask(t, p.serverKey, 'How do I decorate the instance?', true).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = parseSse(res.text);
    expect(events[0]!.chunk).toBe('<|source|>');
    expect(events[events.length - 1]!.chunk).toBe('<|message_id|>');
    const text = events.filter((e) => !/^<\|[a-z_]+\|>$/.test(e.chunk));
    // Token by token: many text events, not one block.
    expect(text.length).toBeGreaterThan(20);
    expect(answerText(events).trim()).toMatch(/^[\w\s.,:;!?()[\]-]+$/);
  });

  it('answers in JSON with the generated text', async () => {
    const res = await ask(t, p.serverKey, 'How do I decorate the instance?', false).expect(200);
    expect(res.body).toMatchObject({
      answer: { text: expect.stringMatching(/\w+ \w+ \w+/) },
      message_id: expect.any(Number),
      sources: expect.any(Array),
    });
    expect((res.body.sources as unknown[]).length).toBeGreaterThan(0);
  });

  it('stops generating when the client disconnects and stores the partial answer', async () => {
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
      while (parseSse(seen.slice(0, seen.lastIndexOf('\n'))).length < 12) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`stream ended early: ${seen}`);
        seen += new TextDecoder().decode(value);
      }
      controller.abort();
      let rows: Array<{ text: string; complete: number }> = [];
      for (let i = 0; i < 250 && rows.length === 0; i++) {
        rows = await t.query(
          "SELECT text, complete FROM messages WHERE sender = 'AI' AND complete = 0 ORDER BY created_at DESC, id DESC LIMIT 1",
        );
        if (rows.length === 0) await new Promise((r) => setTimeout(r, 20));
      }
      expect(rows[0]!.complete).toBe(0);
      // Far fewer than the 600 tokens it was allowed: generation stopped at the disconnect.
      expect(rows[0]!.text.split(' ').length).toBeLessThan(500);
      expect(await llmHealth(t)).toMatchObject({ state: 'ready', running: 0, waiting: 0 });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('Chat with a corrupt local model file (e2e)', () => {
  let dir: string;
  let t: TestApp;
  let p: TestProject;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kbqa-local-llm-bad-'));
    const modelFile = join(dir, 'broken.gguf');
    writeFileSync(modelFile, '<html>404 Not Found</html>\n'.repeat(10));
    t = await startTestApp({ KBQA_LLM: 'local', KBQA_LLM_MODEL_FILE: modelFile });
    p = await t.createProject('broken');
    await ingest(t, p);
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says why in /health, without the folder of the file', async () => {
    const llm = await llmHealth(t);
    expect(llm).toEqual({
      model: DEFAULT_LOCAL_MODEL,
      state: 'unavailable',
      detail: expect.stringContaining(
        'Model file broken.gguf is not a GGUF model file: the file does not start with the GGUF magic',
      ),
    });
    expect(String(llm.detail)).not.toContain(dir);
    const res = await request(t.http).get('/health').expect(200);
    expect(res.body.status).toBe('ok');
  });

  it('answers with the extractive generator instead, in JSON and over SSE', async () => {
    const json = await ask(t, p.serverKey, 'How do I decorate the instance?', false).expect(200);
    expect(json.body.answer.text).toMatch(/decorate/i);
    const sse = await ask(t, p.serverKey, 'How do I decorate the instance?', true).expect(200);
    expect(answerText(parseSse(sse.text))).toBe(json.body.answer.text);
  });
});

describe('A busy local model (e2e, one sequence, a queue of one)', () => {
  let dir: string;
  let t: TestApp;
  let p: TestProject;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kbqa-local-llm-busy-'));
    t = await startTestApp({
      KBQA_LLM: 'local',
      KBQA_LLM_MODEL_FILE: await writeTinyGguf(dir),
      KBQA_LLM_CONTEXT_TOKENS: '300',
      KBQA_LLM_MAX_TOKENS: '3000',
      KBQA_LLM_SEQUENCES: '1',
      KBQA_LLM_QUEUE: '1',
      KBQA_LLM_THREADS: '1',
    });
    p = await t.createProject('busy');
    await ingest(t, p);
    // KBQA_LLM_SEQUENCES=1 overrides the count chosen from the host.
    expect(await llmHealth(t)).toMatchObject({ state: 'ready', sequences: 1 });
    const server = t.app.getHttpServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    const server = t.app.getHttpServer();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** An SSE chat read event by event until `until` says stop. */
  async function openStream(controller: AbortController) {
    const res = await fetch(`http://127.0.0.1:${port}/v1/serviceChat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ api_key: p.serverKey, question: 'hooks', history: [] }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let seen = '';
    return {
      async readUntil(until: (events: Array<{ chunk: string }>) => boolean): Promise<void> {
        while (!until(parseSse(seen.slice(0, seen.lastIndexOf('\n'))))) {
          const { done, value } = await reader.read();
          if (done) throw new Error(`stream ended early: ${seen}`);
          seen += new TextDecoder().decode(value);
        }
      },
    };
  }
  const textEvents = (events: Array<{ chunk: string }>) =>
    events.filter((e) => !/^<\|[a-z_]+\|>$/.test(e.chunk)).length;

  it('sends a queued stream its sources at once, refuses past the queue with 503 and Retry-After, and goes on', async () => {
    const first = new AbortController();
    const second = new AbortController();
    try {
      const a = await openStream(first);
      await a.readUntil((events) => textEvents(events) >= 5);
      const b = await openStream(second);
      await b.readUntil((events) => events.some((e) => e.chunk === '<|source|>'));
      expect(await llmHealth(t)).toMatchObject({ running: 1, waiting: 1 });

      const refused = await ask(t, p.serverKey, 'hooks', false).expect(503);
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(refused.body).toEqual({ error: expect.stringContaining('busy'), code: 'MODEL_BUSY' });

      // The first reader leaves: the queued one gets the sequence and its text starts.
      first.abort();
      await b.readUntil((events) => textEvents(events) >= 5);
    } finally {
      first.abort();
      second.abort();
    }
    for (let i = 0; i < 250; i++) {
      const llm = await llmHealth(t);
      if (llm.running === 0 && llm.waiting === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await llmHealth(t)).toMatchObject({ running: 0, waiting: 0 });
  });
});

describe('Chat with a local model and a project tool (e2e, tool API on 127.0.0.1)', () => {
  let dir: string;
  let api: TestServer;
  const received: string[] = [];
  let t: TestApp;
  let p: TestProject;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kbqa-local-llm-tools-'));
    api = await startServer((req, res) => {
      received.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ left: 3 }));
    });
    t = await startTestApp({
      KBQA_LLM: 'local',
      KBQA_LLM_MODEL_FILE: await writeTinyGguf(dir),
      KBQA_LLM_CONTEXT_TOKENS: '300',
      KBQA_LLM_MAX_TOKENS: '40',
      KBQA_LLM_THREADS: '1',
      KBQA_ALLOW_PRIVATE_HOSTS: api.hostPort,
    });
    p = await t.createProject('tools');
    await ingest(t, p);
    await t.app.get(ToolsService).create(p.id, {
      name: 'stock',
      description: 'Units left of a product',
      parameters: { type: 'object', properties: { sku: { enum: ['A-1', 'B-2'] } }, required: ['sku'] },
      method: 'GET',
      url: `${api.origin}/stock/{sku}`,
      headers: {},
      public: false,
    });
  });
  afterAll(async () => {
    await t.close();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('offers the tool; any call the grammar lets the model make names it with valid arguments', async () => {
    const res = await ask(t, p.serverKey, 'How many units of the product are left?', true).expect(200);
    const events = parseSse(res.text);
    expect(events.some((e) => e.chunk === '<|loading_tools|>')).toBe(true);
    const called = events.filter((e) => e.chunk === '<|tool_called|>');
    // Random weights choose the tool or no tool, each round; every choice is well-formed, and a
    // call repeated with the same arguments ends the rounds, so two SKUs allow two calls at most.
    expect(called.length).toBeLessThanOrEqual(2);
    for (const e of called) expect(e.metadata).toEqual({ name: 'stock' });
    expect(received).toHaveLength(called.length);
    for (const url of received) expect(url).toMatch(/^\/stock\/(A-1|B-2)$/);
    expect(new Set(received).size).toBe(received.length);
    expect(events[events.length - 1]!.chunk).toBe('<|message_id|>');
    expect(answerText(events).trim()).not.toBe('');
  });
});
