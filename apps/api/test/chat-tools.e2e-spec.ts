import type { IncomingMessage } from 'node:http';
import { Logger } from '@nestjs/common';
import { startServer, type TestServer } from '@kbqa/core/testing';
import request from 'supertest';
import { ToolsService } from '../src/tools/tools.service';
import {
  callToolsThenAnswer,
  type FakeLlm,
  type FakeToolCall,
  type RecordedRequest,
  startFakeLlm,
  streamText,
  streamToolCalls,
} from './fake-llm';
import { startTestApp, type TestApp, type TestProject } from './helpers';
import { answerText, parseSse } from './sse';

const SECRET = 'sk-stock-secret-4b9e2d7a1c';
const ISO_MS_Z = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface Received {
  url: string;
  apiKey: string | undefined;
}

/** A local API standing in for the tools' server: records each request, echoes the key it got. */
function startToolApi(received: Received[]): Promise<TestServer> {
  return startServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      const apiKey = req.headers['x-api-key'] as string | undefined;
      received.push({ url: req.url ?? '', apiKey });
      if (req.url?.startsWith('/fail')) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('stock database down');
        return;
      }
      // Echoes its credential: the service must redact it wherever the output goes.
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ sku: req.url?.split('/').pop(), left: 3, got_key: apiKey }));
    });
  });
}

function tool(name: string, origin: string, options: { path?: string; public?: boolean } = {}) {
  return {
    name,
    description: `Units left of a product (${name})`,
    parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
    method: 'GET',
    url: `${origin}${options.path ?? '/stock'}/{sku}`,
    headers: { 'X-Api-Key': SECRET },
    public: options.public ?? false,
  };
}

const call = (id: string, name: string, sku = 'A-1'): FakeToolCall => ({
  id,
  name,
  arguments: JSON.stringify({ sku }),
});

describe('Chat with project tools (e2e, fake LLM and tool API on 127.0.0.1)', () => {
  const received: Received[] = [];
  const unlisted: Received[] = [];
  let api: TestServer;
  let other: TestServer;
  let closedPort: string;
  let llm: FakeLlm;
  let t: TestApp;
  let p: TestProject;
  let plain: TestProject;
  /** Every body the service answered, checked for the secret at the end. */
  const seen: string[] = [];
  const logged: string[] = [];
  const spies: jest.SpyInstance[] = [];

  beforeAll(async () => {
    for (const level of ['log', 'error', 'warn', 'debug', 'verbose', 'fatal'] as const) {
      spies.push(
        jest.spyOn(Logger.prototype, level).mockImplementation((...args: unknown[]) => {
          logged.push(
            args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : String(a))).join(' '),
          );
        }),
      );
    }
    api = await startToolApi(received);
    other = await startToolApi(unlisted);
    const closed = await startToolApi([]);
    closedPort = closed.hostPort;
    await closed.close();
    llm = await startFakeLlm();
    t = await startTestApp({
      KBQA_LLM: 'openai',
      KBQA_LLM_BASE_URL: llm.baseUrl,
      KBQA_LLM_MODEL: 'fake-model',
      KBQA_LLM_IDLE_TIMEOUT_MS: '2000',
      // `other` is not listed: its private address must be refused.
      KBQA_ALLOW_PRIVATE_HOSTS: `${api.hostPort},${closedPort}`,
      KBQA_TOOL_TIMEOUT: '5s',
      KBQA_TOOL_MAX_ROUNDS: '2',
    });
    p = await t.createProject('shop');
    plain = await t.createProject('no tools');
    for (const project of [p, plain]) {
      await t.projects.setExport(project.id, true);
      const res = await t.post('/v1/ingestDocuments', {
        api_key: project.serverKey,
        documents: [
          {
            source: 'stock.md',
            content: 'Stock levels. Ask the assistant how many units of a product are left in stock.',
          },
        ],
      });
      await t.waitForTask(res.body.task_id);
    }
    const tools = t.app.get(ToolsService);
    await tools.create(p.id, tool('stock', api.origin, { public: true }));
    await tools.create(p.id, tool('internal_stock', api.origin));
    await tools.create(p.id, tool('failing', api.origin, { path: '/fail' }));
    await tools.create(p.id, tool('down', `http://${closedPort}`));
    await tools.create(p.id, tool('unlisted', other.origin));
  });
  afterAll(async () => {
    for (const spy of spies) spy.mockRestore();
    await t.close();
    await llm.close();
    await api.close();
    await other.close();
  });
  beforeEach(() => {
    llm.requests.length = 0;
    received.length = 0;
  });

  /** The model: calls `calls` while tools are offered and it has not called them yet, then answers. */
  const model = (calls: FakeToolCall[], answer: string, json = false) =>
    callToolsThenAnswer(llm, calls, answer, { json, pieces: [answer.slice(0, 4), answer.slice(4)] });

  const chat = async (key: string, body: Record<string, unknown>) => {
    const res = await request(t.http)
      .post('/v1/serviceChat')
      .set('Accept', 'text/event-stream')
      .send({ api_key: key, history: [], question: 'How many A-1 are left?', ...body });
    seen.push(res.text);
    return res;
  };

  const toolMessages = (req: RecordedRequest | undefined) =>
    (req?.body.messages ?? []).filter((m) => m.role === 'tool');

  it('streams loading_tools, the call and its output after the sources, then the answer', async () => {
    model([call('call_1', 'stock')], 'Three units are left.');
    const res = await chat(p.serverKey, {});
    expect(res.status).toBe(200);
    const events = parseSse(res.text);
    expect(events.map((e) => (/^<\|/.test(e.chunk) ? e.chunk : 'text'))).toEqual([
      '<|source|>',
      '<|loading_tools|>',
      '<|tool_called|>',
      '<|tool_output|>',
      'text',
      'text',
      '<|message_id|>',
    ]);
    expect(events[1]!.metadata).toBe(true);
    expect(events[2]!.metadata).toEqual({ name: 'stock' });
    const output = (events[3]!.metadata as { data: string }).data;
    expect(JSON.parse(output)).toEqual({ sku: 'A-1', left: 3, got_key: '••••' });
    expect(answerText(events)).toBe('Three units are left.');

    // The tool's request really carried the stored secret.
    expect(received).toEqual([{ url: '/stock/A-1', apiKey: SECRET }]);

    // The model was offered every tool of the project (server key), then got the result as a tool message.
    const [first, second] = llm.requests;
    expect(first!.body.tools!.map((x) => x.function.name)).toEqual([
      'stock',
      'internal_stock',
      'failing',
      'down',
      'unlisted',
    ]);
    expect(first!.body.tools![0]).toEqual({
      type: 'function',
      function: {
        name: 'stock',
        description: 'Units left of a product (stock)',
        parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
      },
    });
    expect(toolMessages(second)).toEqual([{ role: 'tool', tool_call_id: 'call_1', content: output }]);
    // Tool output is data: never in the system prompt.
    expect(second!.body.messages[0]!.role).toBe('system');
    expect(second!.body.messages[0]!.content).not.toContain('"left"');

    // The stored answer keeps its tool usage: byConversationId and the export show it.
    const messageId = events[events.length - 1]!.metadata as number;
    const [row] = await t.query<{ conversation_id: number }>(
      'SELECT conversation_id FROM messages WHERE id = ?',
      [messageId],
    );
    const byConversation = await t
      .post('/v1/messages/byConversationId', { api_key: p.serverKey, conversation_id: row!.conversation_id })
      .expect(200);
    seen.push(byConversation.text);
    const [human, ai] = byConversation.body as Array<Record<string, unknown>>;
    expect(human).toMatchObject({ sender: 'Human', tools_used: [] });
    expect(ai).toMatchObject({
      sender: 'AI',
      message_id: messageId,
      message: 'Three units are left.',
      rating_value: 0,
      tools_used: [
        {
          id: expect.any(String),
          internal_run_id: expect.any(String),
          tool_name: 'stock',
          has_error: false,
          date: expect.stringMatching(ISO_MS_Z),
        },
      ],
    });
    const exported = await t.post('/v1/getMessagesData', { api_key: p.serverKey }).expect(200);
    seen.push(exported.text);
    const record = (exported.body as Array<Record<string, unknown>>).find((m) => m.message_id === messageId);
    expect(record).toMatchObject({
      human_query: 'How many A-1 are left?',
      ai_response: 'Three units are left.',
      tools_used: ai!.tools_used,
    });
  });

  it('answers JSON with tools_used, from a model that answers with message.tool_calls', async () => {
    model([call('j1', 'stock', 'B-2'), call('j2', 'internal_stock', 'C-3')], 'Enough.', true);
    const res = await chat(p.serverKey, { shouldStream: false });
    expect(res.status).toBe(200);
    expect(res.body.answer).toEqual({ text: 'Enough.' });
    expect(res.body.tools_used).toEqual([
      {
        id: expect.any(String),
        internal_run_id: expect.any(String),
        tool_name: 'stock',
        has_error: false,
        date: expect.stringMatching(ISO_MS_Z),
      },
      expect.objectContaining({ tool_name: 'internal_stock', has_error: false }),
    ]);
    const [a, b] = res.body.tools_used as Array<{ id: string; internal_run_id: string }>;
    expect(a!.id).not.toBe(b!.id);
    expect(a!.internal_run_id).toBe(b!.internal_run_id);
    expect(received.map((r) => r.url)).toEqual(['/stock/B-2', '/stock/C-3']);
    expect(toolMessages(llm.requests[1]).map((m) => m.tool_call_id)).toEqual(['j1', 'j2']);

    const again = await chat(p.serverKey, { shouldStream: false });
    expect(again.body.tools_used[0].internal_run_id).not.toBe(a!.internal_run_id);
  });

  it('gives has_error for a 500 and an unreachable tool, and still answers', async () => {
    model([call('f1', 'failing'), call('f2', 'down')], 'The stock service is unavailable.');
    const res = await chat(p.serverKey, { shouldStream: false });
    expect(res.status).toBe(200);
    expect(res.body.answer.text).toBe('The stock service is unavailable.');
    expect(res.body.tools_used).toEqual([
      expect.objectContaining({ tool_name: 'failing', has_error: true }),
      expect.objectContaining({ tool_name: 'down', has_error: true }),
    ]);
    const [failed, down] = toolMessages(llm.requests[1]);
    expect(failed!.content).toMatch(/^Error: .*HTTP 500/);
    expect(failed!.content).toContain('stock database down');
    expect(down!.content).toMatch(/^Error: .*connection refused/);
  });

  it('refuses a tool aimed at a private address the allowlist does not cover; that API gets nothing', async () => {
    model([call('u1', 'unlisted')], 'Could not check.');
    const res = await chat(p.serverKey, {});
    const events = parseSse(res.text);
    const output = events.find((e) => e.chunk === '<|tool_output|>')!.metadata as { data: string };
    expect(output.data).toContain('KBQA_ALLOW_PRIVATE_HOSTS');
    expect(answerText(events)).toBe('Could not check.');
    expect(toolMessages(llm.requests[1])[0]!.content).toContain('KBQA_ALLOW_PRIVATE_HOSTS');
    expect(unlisted).toEqual([]);
  });

  it('offers an anon key only the public tools, and runs no other tool the model names', async () => {
    model([call('x1', 'internal_stock'), call('x2', 'stock')], 'One of them answered.');
    const res = await chat(p.anonKey, { shouldStream: false });
    expect(res.status).toBe(200);
    expect(llm.requests[0]!.body.tools!.map((x) => x.function.name)).toEqual(['stock']);
    expect(res.body.tools_used).toEqual([
      expect.objectContaining({ tool_name: 'internal_stock', has_error: true }),
      expect.objectContaining({ tool_name: 'stock', has_error: false }),
    ]);
    // Only the public tool reached the API.
    expect(received.map((r) => r.url)).toEqual(['/stock/A-1']);
    expect(toolMessages(llm.requests[1])[0]!.content).toBe(
      'Error: no tool named "internal_stock" is offered',
    );
  });

  it('holds the rounds limit: a model that always calls tools gets 2 rounds, then a request without tools', async () => {
    let n = 0;
    llm.script = {
      kind: 'custom',
      respond: (req, res) => {
        if (req.body.tools) streamToolCalls(res, [call(`r${++n}`, 'stock')]);
        else streamText(res, ['Stopped asking.']);
      },
    };
    const res = await chat(p.serverKey, {});
    const events = parseSse(res.text);
    expect(answerText(events)).toBe('Stopped asking.');
    expect(events.filter((e) => e.chunk === '<|tool_called|>')).toHaveLength(2);
    expect(llm.requests.map((r) => r.body.tools !== undefined)).toEqual([true, true, false]);
    expect(toolMessages(llm.requests[2])).toHaveLength(2);
    expect(received).toHaveLength(2);
  });

  it('offers at most 64 tools per chat, the ones the question is about when the project has more', async () => {
    const many = await t.createProject('many tools');
    const tools = t.app.get(ToolsService);
    // 79 look-alike tools first, then the one the question is about: offered by relevance, not age.
    for (let i = 0; i < 79; i++) {
      await tools.create(many.id, {
        ...tool(`warehouse_${i}`, api.origin),
        description: `Stock of warehouse ${i}`,
      });
    }
    await tools.create(many.id, {
      ...tool('printShippingLabel', api.origin),
      description: 'Prints the shipping label of a parcel',
    });
    llm.script = { kind: 'answer', pieces: ['Use the label tool.'] };
    await chat(many.serverKey, { question: 'Can you print the shipping label for my parcel?' });
    const offered = llm.requests[0]!.body.tools!.map((x) => x.function.name);
    expect(offered).toHaveLength(64);
    expect(offered).toContain('printShippingLabel');
    // The others keep their order, oldest first.
    expect(offered.slice(0, 3)).toEqual(['warehouse_0', 'warehouse_1', 'warehouse_2']);
  });

  it('sends the request as before, and no tool event, for a project without tools', async () => {
    llm.script = { kind: 'answer', pieces: ['No tools here.'] };
    const res = await chat(plain.serverKey, {});
    const events = parseSse(res.text);
    expect(events.map((e) => e.chunk)).toEqual(['<|source|>', 'No tools here.', '<|message_id|>']);
    expect(llm.requests).toHaveLength(1);
    expect('tools' in llm.requests[0]!.body).toBe(false);
    const json = await chat(plain.serverKey, { shouldStream: false });
    expect(json.body.tools_used).toEqual([]);
  });

  it('never showed the secret in any answer, stream, export or log line, and logged tool calls by name', () => {
    expect(seen.length).toBeGreaterThan(8);
    for (const text of seen) expect(text).not.toContain(SECRET);
    for (const line of logged) expect(line).not.toContain(SECRET);
    expect(logged).toContain('tool stock: HTTP 200');
    // No argument or output reaches the log.
    for (const line of logged) expect(line).not.toContain('A-1');
  });
});
