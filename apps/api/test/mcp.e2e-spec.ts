import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { ANSWER_FLOOR } from '@kbqa/core';
import { readDocsCorpusFile } from '@kbqa/core/testing';
import { startTestApp, type TestApp, type TestProject } from './helpers';
import { createScratchDatabase, postgresReachable } from './postgres-scratch';

/** The corpus pages project A holds (Tidepool's docs, fixtures/docs-corpus). */
const PAGES = [
  'reference/server.md',
  'reference/routes.md',
  'reference/hooks.md',
  'reference/decorators.md',
  'reference/errors.md',
  'reference/logging.md',
  'guides/testing.md',
];

interface Passage {
  link: string;
  title?: string;
  content: string;
  relevance_score: number;
}

describe('MCP endpoint (e2e, the SDK client on 127.0.0.1)', () => {
  let t: TestApp;
  let a: TestProject;
  let b: TestProject;
  let url: URL;
  const clients: Client[] = [];

  /** A connected SDK client; closed after the test. */
  async function connect(key: string | undefined): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: key === undefined ? {} : { headers: { Authorization: `Bearer ${key}` } },
    });
    const client = new Client({ name: 'kbqa-e2e', version: '1.0.0' });
    clients.push(client);
    await client.connect(transport);
    return client;
  }

  async function search(client: Client, args: Record<string, unknown>) {
    const result = await client.callTool({ name: 'search', arguments: args });
    const passages = (result.structuredContent as { passages: Passage[] } | undefined)?.passages ?? [];
    return { result, passages };
  }

  beforeAll(async () => {
    t = await startTestApp();
    a = await t.createProject('tidepool');
    b = await t.createProject('other');
    const documents = PAGES.map((page) => ({
      source: page,
      content: readDocsCorpusFile(page),
      metadata: { section: page.split('/')[0]! },
    }));
    const ingested = await t.post('/v1/ingestDocuments', { api_key: a.serverKey, documents }).expect(200);
    await t.waitForTask(ingested.body.task_id);
    const other = await t
      .post('/v1/ingestDocuments', {
        api_key: b.serverKey,
        documents: [
          { source: 'b/secret.md', content: '# Moonbeam\n\nThe moonbeam quota is 42 parcels per hour.' },
        ],
      })
      .expect(200);
    await t.waitForTask(other.body.task_id);
    await t.app.listen(0, '127.0.0.1');
    url = new URL('/mcp', await t.app.getUrl());
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await t.close();
  });

  it('lists the search and ask tools with their input schemas', async () => {
    const client = await connect(a.serverKey);
    expect(client.getServerVersion()?.name).toBe('kbqa');
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(['ask', 'search']);
    const searchTool = byName.get('search')!;
    expect(searchTool.inputSchema.required).toEqual(['question']);
    expect(Object.keys(searchTool.inputSchema.properties ?? {}).sort()).toEqual([
      'num_chunks',
      'question',
      'where',
    ]);
    expect(searchTool.inputSchema.properties?.num_chunks).toMatchObject({ minimum: 1, maximum: 50 });
    expect(searchTool.outputSchema?.properties).toHaveProperty('passages');
    expect(byName.get('ask')!.inputSchema.required).toEqual(['question']);
  });

  it('search finds the page that answers a question, with links and scores in [0, 1]', async () => {
    const client = await connect(a.serverKey);
    const { result, passages } = await search(client, {
      question: 'What is the largest request body the server accepts?',
    });
    expect(result.isError).toBeFalsy();
    expect(passages.length).toBeGreaterThan(0);
    expect(passages.length).toBeLessThanOrEqual(5);
    expect(passages.slice(0, 3).map((p) => p.link)).toContain('reference/server.md');
    // Scores are in [0, 1] and never rise down the list; the page that answers clears the floor.
    const scores = passages.map((p) => p.relevance_score);
    expect(scores[0]).toBeGreaterThanOrEqual(ANSWER_FLOOR);
    expect(scores[0]).toBeLessThanOrEqual(1);
    expect(scores[scores.length - 1]).toBeGreaterThanOrEqual(0);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    for (const p of passages) expect(p.content.length).toBeGreaterThan(0);
    const [text] = result.content as Array<{ type: string; text: string }>;
    expect(text!.type).toBe('text');
    expect(text!.text).toContain('reference/server.md');
    expect(text!.text).toMatch(/^\[1\] /);
  });

  it('search honours num_chunks and the where filter', async () => {
    const client = await connect(a.serverKey);
    const question = 'How do I write tests for my routes?';
    const one = await search(client, { question, num_chunks: 1 });
    expect(one.passages).toHaveLength(1);
    const guides = await search(client, { question, where: { section: { $eq: 'guides' } }, num_chunks: 10 });
    expect(guides.passages.length).toBeGreaterThan(0);
    expect(guides.passages.every((p) => p.link === 'guides/testing.md')).toBe(true);
    const reference = await search(client, {
      question,
      where: { section: { $ne: 'guides' } },
      num_chunks: 10,
    });
    expect(reference.passages.length).toBeGreaterThan(0);
    expect(reference.passages.every((p) => p.link.startsWith('reference/'))).toBe(true);
    // $nin, listed in docs/mcp.md, was an unknown operator.
    const notGuides = await search(client, {
      question,
      where: { section: { $nin: ['guides', 'blog'] } },
      num_chunks: 10,
    });
    expect(notGuides.result.isError).toBeFalsy();
    expect(notGuides.passages.map((p) => p.link)).toEqual(reference.passages.map((p) => p.link));
  });

  it('search refuses a bad where filter or num_chunks as a tool error', async () => {
    const client = await connect(a.serverKey);
    const bad = await search(client, { question: 'hooks', where: { version: { $regex: 'x' } } });
    expect(bad.result.isError).toBe(true);
    expect(JSON.stringify(bad.result.content)).toMatch(/unknown operator.*BAD_REQUEST/);
    const tooMany = await search(client, { question: 'hooks', num_chunks: 51 });
    expect(tooMany.result.isError).toBe(true);
  });

  it('ask answers with numbered sources and stores the question and answer as an mcp conversation', async () => {
    const client = await connect(a.anonKey);
    const [before] = await t.query<{ n: number }>('SELECT count(*) AS n FROM conversations');
    const question = 'What is the largest request body the server accepts?';
    const result = await client.callTool({ name: 'ask', arguments: { question } });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as {
      answer: string;
      sources: Array<{ link: string; relevance_score: number }>;
    };
    expect(structured.answer.length).toBeGreaterThan(0);
    expect(structured.sources.map((s) => s.link)).toContain('reference/server.md');
    // The text numbers pages, each listed once; the structured answer numbers the passages.
    const [text] = result.content as Array<{ text: string }>;
    const [body, list] = text!.text.split('\n\nSources:\n');
    const listed = list!.split('\n').map((line) => /^\[(\d+)\] (?:.* - )?(\S+)$/.exec(line));
    expect(listed.map((m) => Number(m?.[1]))).toEqual(listed.map((_, i) => i + 1));
    expect(listed.map((m) => m?.[2]).sort()).toEqual(
      [...new Set(structured.sources.map((s) => s.link))].sort(),
    );
    const cited = [...body!.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(cited.length).toBeGreaterThan(0);
    for (const n of cited) expect(n).toBeLessThanOrEqual(listed.length);
    const [after] = await t.query<{ n: number }>('SELECT count(*) AS n FROM conversations');
    expect(after!.n).toBe(before!.n + 1);
    const stored = await t.query<{ channel: string; started_by: string; sender: string; text: string }>(
      `SELECT c.channel, c.started_by, m.sender, m.text FROM conversations c
       JOIN messages m ON m.conversation_id = c.id
       WHERE c.id = (SELECT conversation_id FROM messages WHERE project_id = ? AND text = ? AND sender = 'Human')
       ORDER BY m.created_at, m.id`,
      [a.id, question],
    );
    expect(stored).toEqual([
      { channel: 'mcp', started_by: 'anon', sender: 'Human', text: question },
      { channel: 'mcp', started_by: 'anon', sender: 'AI', text: structured.answer },
    ]);
  });

  it("lists the project's sources as resources and reads one's text", async () => {
    const client = await connect(a.serverKey);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.name).sort()).toEqual([...PAGES].sort());
    const server = resources.find((r) => r.name === 'reference/server.md')!;
    expect(server.uri).toMatch(/^kbqa:\/\/sources\/\d+$/);
    expect(server.mimeType).toBe('text/markdown');
    const { contents } = await client.readResource({ uri: server.uri });
    expect(contents).toHaveLength(1);
    expect((contents[0] as { text: string }).text).toContain('bodyLimit');
  });

  it("never shows one project's sources or passages to another project's key", async () => {
    const clientB = await connect(b.serverKey);
    const { passages } = await search(clientB, {
      question: 'What is the largest request body the server accepts?',
    });
    expect(passages.every((p) => p.link === 'b/secret.md')).toBe(true);
    const { resources } = await clientB.listResources();
    expect(resources.map((r) => r.name)).toEqual(['b/secret.md']);
    const clientA = await connect(a.serverKey);
    const secret = await search(clientA, { question: 'moonbeam quota parcels' });
    expect(secret.passages.map((p) => p.link)).not.toContain('b/secret.md');
    // A resource id of project B read with A's key: as unknown as an id that does not exist.
    await expect(clientA.readResource({ uri: resources[0]!.uri })).rejects.toThrow(/Resource not found/);
  });

  it('gives anon keys the tools but not the sources as resources', async () => {
    const client = await connect(a.anonKey);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['ask', 'search']);
    const { passages } = await search(client, { question: 'How do I register a hook?' });
    expect(passages.length).toBeGreaterThan(0);
    await expect(client.listResources()).rejects.toThrow();
  });

  it('refuses a wrong or missing key with a 401 the SDK client reports', async () => {
    await expect(connect('kbqa_sk_thisIsNotAKnownKeyAtAll0000')).rejects.toThrow(/401|Invalid API key/);
    await expect(connect(undefined)).rejects.toThrow(/401|Bearer/);

    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(initialize),
      });
    const refusals: Array<Record<string, string>> = [
      { Authorization: 'Bearer kbqa_sk_wrongwrongwrongwrongwrong' },
      {},
    ];
    for (const headers of refusals) {
      const res = await post(headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
      const body = (await res.json()) as { error: string; code: string };
      expect(body.code).toBe('UNAUTHORIZED');
      expect(typeof body.error).toBe('string');
    }
    const ok = await post({ Authorization: `Bearer ${a.serverKey}` });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('mcp-session-id')).toBeNull();
    expect(((await ok.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe(
      'kbqa',
    );
  });

  it('answers GET and DELETE with 405 and a JSON-RPC error (stateless: no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(url, { method, headers: { Authorization: `Bearer ${a.serverKey}` } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      const body = (await res.json()) as { jsonrpc: string; error: { code: number } };
      expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    }
  });

  it('refuses a cross-origin browser request before looking at the key', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        Origin: 'https://evil.example',
        Authorization: `Bearer ${a.serverKey}`,
        'Content-Type': 'application/json',
      },
      body: '{}',
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
  });
});

/** The analytics SQL runs on both stores; PostgreSQL when reachable. */
const STORES = postgresReachable ? ['sqlite', 'postgres'] : ['sqlite'];

describe.each(STORES)('MCP questions in the analytics on %s (e2e)', (store) => {
  const TOKEN = 'operator-token-for-mcp-analytics-0123456789';
  let t: TestApp;
  let p: TestProject;
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
  let client: Client | undefined;

  beforeAll(async () => {
    scratch = store === 'postgres' ? await createScratchDatabase('kbqa_mcp') : undefined;
    t = await startTestApp({
      KBQA_ADMIN_TOKEN: TOKEN,
      ...(scratch ? { KBQA_DATABASE_URL: scratch.url } : {}),
    });
    p = await t.createProject('tidepool');
    const ingested = await t
      .post('/v1/ingestDocuments', {
        api_key: p.serverKey,
        documents: [{ source: 'reference/server.md', content: readDocsCorpusFile('reference/server.md') }],
      })
      .expect(200);
    await t.waitForTask(ingested.body.task_id);
    await t.app.listen(0, '127.0.0.1');
    // Boots the app and ingests on shared cores: more than the default 30 s is no failure.
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await t.close();
    await scratch?.drop();
  });

  it('counts each ask under mcp, and a search not at all', async () => {
    client = new Client({ name: 'kbqa-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', await t.app.getUrl()), {
        requestInit: { headers: { Authorization: `Bearer ${p.serverKey}` } },
      }),
    );
    for (const question of ['What is the largest request body?', 'How do I set the port?']) {
      expect((await client.callTool({ name: 'ask', arguments: { question } })).isError).toBeFalsy();
    }
    const searched = await client.callTool({ name: 'search', arguments: { question: 'body limit' } });
    expect(searched.isError).toBeFalsy();
    await t
      .post('/v1/serviceChat', {
        api_key: p.serverKey,
        question: 'What is the default port?',
        shouldStream: false,
      })
      .expect(200);

    const res = await request(t.http)
      .get(`/admin/v1/projects/${p.id}/analytics`)
      .set('Authorization', `Bearer ${TOKEN}`)
      .expect(200);
    expect(res.body.questions_by_channel).toEqual({ api: 1, widget: 0, slack: 0, discord: 0, mcp: 2 });
    // Every question counted by channel is one of the questions per day.
    const perDay = (res.body.questions_per_day as Array<{ questions: number }>).reduce(
      (n, d) => n + d.questions,
      0,
    );
    expect(perDay).toBe(3);
  });
});

describe('MCP endpoint rate limits (e2e)', () => {
  let t: TestApp;
  let p: TestProject;
  let url: URL;

  beforeAll(async () => {
    t = await startTestApp({ KBQA_RATE_CHAT_PER_MIN: '2', KBQA_RATE_FAILED_KEYS_PER_MIN: '2' });
    p = await t.createProject();
    await t.app.listen(0, '127.0.0.1');
    url = new URL('/mcp', await t.app.getUrl());
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts search and ask against the key’s chat limit and reports a spent one as a tool error', async () => {
    const client = new Client({ name: 'kbqa-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { Authorization: `Bearer ${p.serverKey}` } },
      }),
    );
    try {
      expect((await client.callTool({ name: 'search', arguments: { question: 'a' } })).isError).toBeFalsy();
      expect((await client.callTool({ name: 'ask', arguments: { question: 'a' } })).isError).toBeFalsy();
      const refused = await client.callTool({ name: 'search', arguments: { question: 'a' } });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toMatch(/retry after \d+ s \(RATE_LIMITED\)/);
      // Listing tools is not a question: it does not count.
      expect((await client.listTools()).tools).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('counts wrong keys per address and then refuses with 429 and Retry-After', async () => {
    const post = (key: string) =>
      fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: '{}' });
    expect((await post('kbqa_sk_wrongwrongwrongwrongwrong1')).status).toBe(401);
    expect((await post('kbqa_sk_wrongwrongwrongwrongwrong2')).status).toBe(401);
    const refused = await post(p.serverKey);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: 'RATE_LIMITED' });
  });
});
