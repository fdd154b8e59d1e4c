import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp, type TestProject } from './helpers';

/**
 * A client written the way the hosted service's published examples are: the key in the JSON
 * body, /v0/ paths, mendableChat, Accept: text/event-stream, reading the body as a stream and
 * parsing `data:` lines as they arrive.
 */
async function hostedStyleChat(base: string, apiKey: string, question: string, conversationId: number) {
  const response = await fetch(`${base}/v0/mendableChat`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify({ api_key: apiKey, question, history: [], conversation_id: conversationId }),
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let answer = '';
  let sources: Array<{ id: string; content: string; link: string }> = [];
  let messageId: number | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('data:')) continue;
      const data = JSON.parse(line.slice(5)) as { chunk: string; metadata?: unknown };
      if (data.chunk === '<|source|>') sources = data.metadata as typeof sources;
      else if (data.chunk === '<|message_id|>') messageId = data.metadata as number;
      else answer += data.chunk;
    }
  }
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    answer,
    sources,
    messageId,
  };
}

describe('Hosted-service client compatibility (e2e, real HTTP on 127.0.0.1)', () => {
  let t: TestApp;
  let p: TestProject;
  let base: string;
  let server: Server;

  beforeAll(async () => {
    t = await startTestApp();
    p = await t.createProject('compat');
    const res = await t.post('/v0/ingestDocuments', {
      api_key: p.serverKey,
      documents: [
        {
          source: 'https://docs.example.com/hooks',
          content: '# Hooks\n\nThe onRequest hook runs first for every request. Use it for authentication.',
        },
      ],
    });
    await t.waitForTask(res.body.task_id);
    server = t.app.getHttpServer() as Server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await t.close();
  });

  it('runs a whole conversation the way the published examples do', async () => {
    const conv = await fetch(`${base}/v0/newConversation`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ api_key: p.serverKey }),
    });
    const { conversation_id } = (await conv.json()) as { conversation_id: number };
    expect(Number.isInteger(conversation_id)).toBe(true);

    const chat = await hostedStyleChat(base, p.serverKey, 'Which hook runs first?', conversation_id);
    expect(chat.status).toBe(200);
    expect(chat.contentType).toMatch(/^text\/event-stream/);
    expect(chat.sources).toEqual([
      {
        id: expect.any(String),
        content: expect.stringContaining('onRequest'),
        link: 'https://docs.example.com/hooks',
      },
    ]);
    expect(chat.answer).toContain('onRequest');
    expect(chat.answer).toContain('[1]');
    expect(Number.isInteger(chat.messageId)).toBe(true);

    const rate = await fetch(`${base}/v0/rateMessage`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ api_key: p.serverKey, message_id: chat.messageId, rating_value: 1 }),
    });
    expect(rate.status).toBe(200);
    expect(await rate.text()).toBe('Message rating updated');

    const end = await fetch(`${base}/v1/endConversation`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ api_key: p.serverKey, conversation_id }),
    });
    expect(await end.text()).toBe('Conversation has ended.');
  });
});
