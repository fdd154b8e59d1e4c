import type { TestServer } from '@kbqa/core/testing';
import request from 'supertest';
import { ToolSourcesService } from '../src/tools/tool-sources.service';
import { callToolsThenAnswer, type FakeLlm, type FakeToolCall, startFakeLlm } from './fake-llm';
import { MCP_SECRET, startMcpServer } from './fake-mcp';
import { startTestApp, type TestApp, type TestProject } from './helpers';
import { answerText, parseSse } from './sse';

/**
 * The chat loop and MCP tool sources together: a model (fake, OpenAI-compatible) calls the tool
 * of an MCP server (the SDK's own server) that the project added as a tool source.
 */
describe('Chat with MCP tool sources (e2e, fake LLM and SDK MCP server on 127.0.0.1)', () => {
  const authSeen: Array<string | undefined> = [];
  let mcp: TestServer;
  let llm: FakeLlm;
  let t: TestApp;
  let p: TestProject;
  const seen: string[] = [];

  beforeAll(async () => {
    mcp = await startMcpServer(authSeen);
    llm = await startFakeLlm();
    t = await startTestApp({
      KBQA_LLM: 'openai',
      KBQA_LLM_BASE_URL: llm.baseUrl,
      KBQA_LLM_MODEL: 'fake-model',
      KBQA_LLM_IDLE_TIMEOUT_MS: '2000',
      KBQA_ALLOW_PRIVATE_HOSTS: mcp.hostPort,
      KBQA_TOOL_TIMEOUT: '5s',
    });
    p = await t.createProject('mcp chat');
    const res = await t.post('/v1/ingestDocuments', {
      api_key: p.serverKey,
      documents: [
        { source: 'shouting.md', content: 'Shouting. The assistant can upper-case a text for you.' },
      ],
    });
    await t.waitForTask(res.body.task_id);
    await t.app.get(ToolSourcesService).create(p.id, {
      kind: 'mcp',
      url: `${mcp.origin}/mcp`,
      headers: { Authorization: MCP_SECRET },
      name: 'helper',
      public: false,
    });
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
    await mcp.close();
  });
  beforeEach(() => {
    llm.requests.length = 0;
  });

  /** Calls `calls` while tools are offered and none was called yet, then answers. */
  const model = (calls: FakeToolCall[], answer: string, json = false) =>
    callToolsThenAnswer(llm, calls, answer, { json });

  const chat = async (key: string, body: Record<string, unknown>) => {
    const res = await request(t.http)
      .post('/v1/serviceChat')
      .set('Accept', 'text/event-stream')
      .send({ api_key: key, history: [], question: 'Shout "hello" for me', ...body });
    seen.push(res.text);
    return res;
  };

  it("offers the MCP server's tools and streams the call and the server's output", async () => {
    model([{ id: 'm1', name: 'shout', arguments: JSON.stringify({ text: 'hello' }) }], 'It says HELLO.');
    const res = await chat(p.serverKey, {});
    expect(res.status).toBe(200);
    const events = parseSse(res.text);
    expect(events.map((e) => (/^<\|/.test(e.chunk) ? e.chunk : 'text'))).toEqual([
      '<|source|>',
      '<|loading_tools|>',
      '<|tool_called|>',
      '<|tool_output|>',
      'text',
      '<|message_id|>',
    ]);
    expect(events[2]!.metadata).toEqual({ name: 'shout' });
    expect((events[3]!.metadata as { data: string }).data).toBe('HELLO\ndone');
    expect(answerText(events)).toBe('It says HELLO.');

    const [first, second] = llm.requests;
    expect(first!.body.tools!.map((x) => x.function.name)).toEqual(['shout', 'lookup', 'explode']);
    expect(second!.body.messages.filter((m) => m.role === 'tool')).toEqual([
      { role: 'tool', tool_call_id: 'm1', content: 'HELLO\ndone' },
    ]);
    // The stored header reached the MCP server.
    expect(authSeen).toContain(MCP_SECRET);
  });

  it('answers JSON with has_error for an MCP tool that reports an error, and never shows its secret', async () => {
    model([{ id: 'm2', name: 'explode', arguments: '{}' }], 'The tool failed.', true);
    const res = await chat(p.serverKey, { shouldStream: false });
    expect(res.status).toBe(200);
    expect(res.body.answer).toEqual({ text: 'The tool failed.' });
    expect(res.body.tools_used).toEqual([expect.objectContaining({ tool_name: 'explode', has_error: true })]);
    const toolMessage = llm.requests[1]!.body.messages.find((m) => m.role === 'tool');
    expect(toolMessage?.content).toContain('boom');
    expect(toolMessage?.content).not.toContain(MCP_SECRET);
  });

  it('offers an anon key no tools of a source that is not public', async () => {
    model([], 'No tools here.', true);
    const res = await chat(p.anonKey, { shouldStream: false });
    expect(res.status).toBe(200);
    expect(res.body.tools_used).toEqual([]);
    expect(llm.requests[0]!.body.tools).toBeUndefined();
    for (const text of seen) expect(text).not.toContain('mcp-secret-9c4e2a7b1d');
  });
});
