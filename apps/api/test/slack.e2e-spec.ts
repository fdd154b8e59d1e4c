import { createHmac } from 'node:crypto';
import request from 'supertest';
import { startFakePlatform, type FakePlatform, type PlatformRequest } from './fake-platform';
import { startFakeLlm, type FakeLlm } from './fake-llm';
import { startTestApp, type TestApp } from './helpers';
import { createScratchDatabase, postgresReachable } from './postgres-scratch';

const TOKEN = 'operator-token-for-slack-e2e-0123456789';
const SIGNING_SECRET = 'slack-signing-secret-5b2f9c';
const BOT_TOKEN = 'xoxb-test-bot-token-77aa';
/** Questions per minute per workspace in this app: the rate-limit test spends a workspace's. */
const PER_MIN = 2;

const DOCS = [
  {
    source: 'https://docs.example.com/install',
    content:
      '# Installing Harbor\n\nInstall Harbor with `npm install harbor-cli`. Harbor needs Node 20 or newer. ' +
      'After installing, run `harbor init` in your project folder to create harbor.toml.',
  },
  {
    source: 'https://docs.example.com/deploy',
    content:
      '# Deploying with Harbor\n\nRun `harbor deploy` to deploy. Deployments go to the region set in harbor.toml; ' +
      'the default region is eu-west. Use `harbor deploy --region us-east` to pick another region.',
  },
];

/** A message showing an answer still being generated: text so far and an ellipsis, no blocks. */
const isPartial = (r: PlatformRequest) => r.body.blocks === undefined && String(r.body.text).endsWith(' …');

/** Both stores run the integrations' SQL (dedup inserts, thread links, analytics); PostgreSQL when reachable. */
const STORES = postgresReachable ? ['sqlite', 'postgres'] : ['sqlite'];

describe.each(STORES)('Slack integration on %s (e2e, a fake Slack API on 127.0.0.1)', (store) => {
  let t: TestApp;
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
  let slack: FakePlatform;
  let projectId: number;
  let ts = 1000;
  let key: string;
  /** The ts the fake Slack answered each request with. */
  const postedTs = new WeakMap<PlatformRequest, string>();

  const admin = (method: 'get' | 'put' | 'delete', path: string, body?: object) => {
    const req = request(t.http)[method](path).set('Authorization', `Bearer ${TOKEN}`);
    return body === undefined ? req : req.send(body);
  };

  /** A request signed as Slack signs it (v0, HMAC-SHA256 over `v0:timestamp:body`). */
  function signed(
    path: 'events' | 'commands',
    body: string,
    options: { timestamp?: number; secret?: string; contentType?: string; retry?: string } = {},
  ) {
    const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
    const signature =
      'v0=' +
      createHmac('sha256', options.secret ?? SIGNING_SECRET)
        .update(`v0:${timestamp}:${body}`)
        .digest('hex');
    const req = request(t.http)
      .post(`/integrations/slack/${projectId}/${path}`)
      .set('Content-Type', options.contentType ?? 'application/json')
      .set('X-Slack-Request-Timestamp', timestamp)
      .set('X-Slack-Signature', signature);
    if (options.retry)
      void req.set('X-Slack-Retry-Num', options.retry).set('X-Slack-Retry-Reason', 'http_timeout');
    return req.send(body);
  }

  let eventCounter = 0;
  /** An event_callback of a mention (or a DM with `im`) in a channel, optionally in a thread. */
  function mention(
    text: string,
    options: { team?: string; channel?: string; thread?: string; im?: boolean; eventId?: string } = {},
  ) {
    const eventTs = `${++ts}.000100`;
    const eventId = options.eventId ?? `Ev${++eventCounter}`;
    const event = options.im
      ? {
          type: 'message',
          channel_type: 'im',
          user: 'U1',
          text,
          channel: options.channel ?? 'D1',
          ts: eventTs,
        }
      : {
          type: 'app_mention',
          user: 'U1',
          text: `<@UBOT> ${text}`,
          channel: options.channel ?? 'C1',
          ts: eventTs,
          ...(options.thread ? { thread_ts: options.thread } : {}),
        };
    const body = JSON.stringify({
      type: 'event_callback',
      team_id: options.team ?? 'T1',
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      event,
    });
    return { body, eventTs, eventId };
  }

  async function humanMessages(): Promise<Array<{ conversation_id: number; text: string }>> {
    return t.query(
      "SELECT conversation_id, text FROM messages WHERE project_id = ? AND sender = 'Human' ORDER BY created_at, id",
      [projectId],
    );
  }

  /**
   * The answer as Slack shows it once complete: its chat.postMessage, then the chat.update edits
   * made while it streamed, up to its final form. Returns the post with the final form's text and
   * blocks.
   */
  async function answered(): Promise<PlatformRequest> {
    const post = await slack.next();
    expect(post.path).toBe('/chat.postMessage');
    let last = post;
    while (isPartial(last)) {
      last = await slack.next();
      expect(last.path).toBe('/chat.update');
      expect(last.body.ts).toBe(postedTs.get(post));
    }
    return last === post
      ? post
      : { ...post, body: { ...post.body, text: last.body.text, blocks: last.body.blocks } };
  }

  beforeAll(async () => {
    let posted = 0;
    slack = await startFakePlatform((req) => {
      const ts = `9000.${++posted}`;
      postedTs.set(req, ts);
      return { body: { ok: true, channel: 'C1', ts } };
    });
    scratch = store === 'postgres' ? await createScratchDatabase('kbqa_slack') : undefined;
    t = await startTestApp({
      KBQA_ADMIN_TOKEN: TOKEN,
      KBQA_SLACK_API_URL: slack.origin,
      KBQA_RATE_CHAT_PER_MIN: String(PER_MIN),
      ...(scratch ? { KBQA_DATABASE_URL: scratch.url } : {}),
    });
    projectId = (await t.createProject('harbor')).id;
    key = (await t.projects.createKey(projectId, 'server')).key;
    const ingested = await t.post('/v1/ingestDocuments', { api_key: key, documents: DOCS }).expect(200);
    await t.waitForTask(ingested.body.task_id);
    // Boots the app and ingests on shared cores: more than the default 30 s is no failure.
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await slack.close();
    await scratch?.drop();
  });
  afterEach(() => {
    // Every test takes the requests it caused: an extra one is a second answer.
    expect(slack.untaken()).toEqual([]);
  });

  it('is configured through the operator API, secrets sealed and never shown', async () => {
    const unconfigured = await admin('get', `/admin/v1/projects/${projectId}/integrations/slack`).expect(404);
    expect(unconfigured.body).toEqual({
      error: expect.stringContaining('no slack integration'),
      code: 'NOT_FOUND',
    });
    const bad = await admin('put', `/admin/v1/projects/${projectId}/integrations/slack`, {
      signing_secret: 42,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('BAD_REQUEST');
    await admin('put', '/admin/v1/projects/999999/integrations/slack', {
      signing_secret: 'x',
      bot_token: 'y',
    }).expect(404);

    const put = await admin('put', `/admin/v1/projects/${projectId}/integrations/slack`, {
      signing_secret: SIGNING_SECRET,
      bot_token: BOT_TOKEN,
    }).expect(200);
    expect(put.body).toMatchObject({
      platform: 'slack',
      configured: true,
      settings: { signing_secret: '••••', bot_token: '••••' },
      endpoints: {
        events: `/integrations/slack/${projectId}/events`,
        commands: `/integrations/slack/${projectId}/commands`,
      },
      last_event_at: null,
    });
    const shown = await admin('get', `/admin/v1/projects/${projectId}/integrations/slack`).expect(200);
    expect(JSON.stringify(shown.body)).not.toContain(SIGNING_SECRET);
    expect(JSON.stringify(shown.body)).not.toContain(BOT_TOKEN);
    const [row] = await t.query<{ settings: string }>(
      "SELECT settings FROM chat_integrations WHERE project_id = ? AND platform = 'slack'",
      [projectId],
    );
    expect(row!.settings).not.toContain(SIGNING_SECRET);
    expect(row!.settings).not.toContain(BOT_TOKEN);
    expect(JSON.parse(row!.settings)).toMatchObject({ signing_secret: expect.stringMatching(/^enc:v1:/) });
  });

  it('answers url_verification with the challenge', async () => {
    const res = await signed(
      'events',
      JSON.stringify({ type: 'url_verification', challenge: 'chal-123' }),
    ).expect(200);
    expect(res.body).toEqual({ challenge: 'chal-123' });
  });

  it('refuses unsigned, badly signed, stale and replayed requests with 401', async () => {
    const { body } = mention('how do I install harbor?');
    const unsigned = await request(t.http)
      .post(`/integrations/slack/${projectId}/events`)
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(401);
    expect(unsigned.body).toEqual({ error: 'the request is not signed', code: 'UNAUTHORIZED' });
    const wrong = await signed('events', body, { secret: 'not-the-secret' }).expect(401);
    expect(wrong.body).toEqual({ error: 'the request signature does not match', code: 'UNAUTHORIZED' });
    const stale = await signed('events', body, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 }).expect(
      401,
    );
    expect(stale.body.error).toContain('more than 5 minutes');
    // The signature covers the raw bytes: the same JSON re-spaced does not match.
    const timestamp = Math.floor(Date.now() / 1000);
    const good = createHmac('sha256', SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest('hex');
    await request(t.http)
      .post(`/integrations/slack/${projectId}/events`)
      .set('Content-Type', 'application/json')
      .set('X-Slack-Request-Timestamp', String(timestamp))
      .set('X-Slack-Signature', `v0=${good}`)
      .send(JSON.stringify(JSON.parse(body), null, 2))
      .expect(401);
    await request(t.http)
      .post('/integrations/slack/999999/events')
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(404);

    // Accepted once, then the very same signed request is a replay.
    const url = JSON.stringify({ type: 'url_verification', challenge: 'again' });
    const first = await signed('events', url, { timestamp });
    expect(first.status).toBe(200);
    const replayed = await signed('events', url, { timestamp }).expect(401);
    expect(replayed.body).toEqual({ error: 'this request was already received', code: 'UNAUTHORIZED' });
    // None of these reached Slack's API.
    expect(slack.untaken()).toEqual([]);
  });

  let firstThread: string;

  it('answers a mention in its thread, with the sources as links and feedback buttons', async () => {
    const before = await humanMessages();
    const { body, eventTs } = mention('how do I install harbor?');
    const ack = await signed('events', body);
    expect(ack.status).toBe(200);
    const post = await answered();
    expect(post.path).toBe('/chat.postMessage');
    expect(post.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(post.body).toMatchObject({ channel: 'C1', thread_ts: eventTs });
    const blocks = JSON.stringify(post.body.blocks);
    expect(blocks).toContain('<https://docs.example.com/install|');
    expect(blocks).toContain('kbqa_rate_up');
    expect(blocks).toContain('kbqa_rate_down');
    expect(String(post.body.text)).toMatch(/npm install harbor-cli/);
    const after = await humanMessages();
    expect(after.length).toBe(before.length + 1);
    expect(after.at(-1)!.text).toBe('how do I install harbor?');
    firstThread = eventTs;

    const shown = await admin('get', `/admin/v1/projects/${projectId}/integrations/slack`).expect(200);
    expect(shown.body.last_event).toBe('app_mention');
    expect(typeof shown.body.last_event_at).toBe('string');
  });

  it('continues the conversation for a follow-up in the same thread', async () => {
    const { body } = mention('and how do I deploy it?', { thread: firstThread });
    await signed('events', body).expect(200);
    const post = await answered();
    expect(post.body).toMatchObject({ channel: 'C1', thread_ts: firstThread });
    const messages = await humanMessages();
    const [first, followUp] = messages.slice(-2);
    expect(followUp!.text).toBe('and how do I deploy it?');
    expect(followUp!.conversation_id).toBe(first!.conversation_id);
    expect(JSON.stringify(post.body.blocks)).toContain('https://docs.example.com/deploy');

    // A mention outside the thread starts another conversation.
    const other = mention('how do I install harbor?', { team: 'T2' });
    await signed('events', other.body).expect(200);
    await answered();
    const last = (await humanMessages()).at(-1)!;
    expect(last.conversation_id).not.toBe(first!.conversation_id);
  });

  it('answers a direct message, and never answers a retried event twice', async () => {
    const dm = mention('what is the default region?', { im: true, team: 'T3', channel: 'D7' });
    const at = Math.floor(Date.now() / 1000);
    await signed('events', dm.body, { timestamp: at }).expect(200);
    const reply = await answered();
    expect(reply.body).toMatchObject({ channel: 'D7', thread_ts: dm.eventTs });
    const count = (await humanMessages()).length;

    // Slack's retry: the same event, signed anew (another timestamp), with X-Slack-Retry-Num.
    const retry = await signed('events', dm.body, {
      timestamp: at - 30,
      retry: '1',
    });
    expect(retry.status).toBe(200);
    // The next post Slack receives is the answer to a new question, not a second one to the retry.
    const next = mention('what does harbor init create?', { team: 'T3', channel: 'C9' });
    await signed('events', next.body).expect(200);
    const post = await answered();
    expect(post.body).toMatchObject({ channel: 'C9', thread_ts: next.eventTs });
    expect((await humanMessages()).length).toBe(count + 1);
    const handled = await t.query<{ n: number }>(
      'SELECT count(*) AS n FROM integration_events WHERE project_id = ? AND event_key = ?',
      [projectId, `event:${dm.eventId}`],
    );
    expect(Number(handled[0]!.n)).toBe(1);
  });

  it('stores a click of 👍 or 👎 as the rating of the answer', async () => {
    const { body } = mention('how do I pick another region?', { team: 'T4' });
    await signed('events', body).expect(200);
    const post = await answered();
    const actions = (
      post.body.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>
    ).find((b) => b.type === 'actions')!;
    const up = actions.elements!.find((e) => e.action_id === 'kbqa_rate_up')!;
    const click = (actionId: string) =>
      new URLSearchParams({
        payload: JSON.stringify({
          type: 'block_actions',
          team: { id: 'T4' },
          actions: [{ action_id: actionId, value: up.value, type: 'button' }],
        }),
      }).toString();
    await signed('commands', click('kbqa_rate_up'), {
      contentType: 'application/x-www-form-urlencoded',
    }).expect(200);
    const rated = () =>
      t.query<{ rating_value: number }>('SELECT rating_value FROM messages WHERE id = ?', [Number(up.value)]);
    expect((await rated())[0]!.rating_value).toBe(1);
    await signed('commands', click('kbqa_rate_down'), {
      contentType: 'application/x-www-form-urlencoded',
    }).expect(200);
    expect((await rated())[0]!.rating_value).toBe(-1);
    const [message] = await t.query<{ sender: string }>('SELECT sender FROM messages WHERE id = ?', [
      Number(up.value),
    ]);
    expect(message!.sender).toBe('AI');
  });

  it('answers a slash command in the channel', async () => {
    const form = new URLSearchParams({
      command: '/ask',
      text: 'which Node version does harbor need?',
      team_id: 'T5',
      channel_id: 'C5',
      user_id: 'U1',
      trigger_id: 'trig-1',
    }).toString();
    const ack = await signed('commands', form, { contentType: 'application/x-www-form-urlencoded' }).expect(
      200,
    );
    expect(ack.body).toEqual({ response_type: 'in_channel', text: '> which Node version does harbor need?' });
    const post = await answered();
    expect(post.body.channel).toBe('C5');
    expect(post.body.thread_ts).toBeUndefined();
    expect(String(post.body.text)).toContain('Node 20');

    const empty = new URLSearchParams({
      command: '/ask',
      text: ' ',
      team_id: 'T5',
      channel_id: 'C5',
    }).toString();
    const usage = await signed('commands', empty, {
      contentType: 'application/x-www-form-urlencoded',
    }).expect(200);
    expect(usage.body.response_type).toBe('ephemeral');
  });

  it('tells a workspace over the chat rate limit so in the thread', async () => {
    const posts: PlatformRequest[] = [];
    for (let i = 0; i <= PER_MIN; i++) {
      const { body } = mention(`how do I install harbor? (${i})`, { team: 'T-busy' });
      await signed('events', body).expect(200);
      posts.push(await answered());
    }
    expect(posts.slice(0, PER_MIN).every((p) => p.body.blocks !== undefined)).toBe(true);
    expect(String(posts[PER_MIN]!.body.text)).toMatch(/Too many questions from this workspace/);
    // Another workspace is not limited by that one.
    const { body } = mention('how do I install harbor?', { team: 'T-quiet' });
    await signed('events', body).expect(200);
    expect((await answered()).body.blocks).toBeDefined();
  });

  it('counts the questions by channel in the analytics', async () => {
    await t
      .post('/v1/serviceChat', { api_key: key, question: 'how do I install harbor?', shouldStream: false })
      .expect(200);
    const [asked] = await t.query<{ n: number }>(
      "SELECT count(*) AS n FROM messages WHERE project_id = ? AND sender = 'Human'",
      [projectId],
    );
    const res = await admin('get', `/admin/v1/projects/${projectId}/analytics`).expect(200);
    // Every question but the serviceChat one came through Slack.
    expect(res.body.questions_by_channel).toEqual({
      api: 1,
      widget: 0,
      slack: Number(asked!.n) - 1,
      discord: 0,
      mcp: 0,
    });
    expect(res.body.questions_by_channel.slack).toBeGreaterThanOrEqual(8);
  });

  it('is removed through the operator API, after which requests are refused', async () => {
    await admin('delete', `/admin/v1/projects/${projectId}/integrations/slack`).expect(200, { deleted: 1 });
    await admin('delete', `/admin/v1/projects/${projectId}/integrations/slack`).expect(404);
    const { body } = mention('how do I install harbor?');
    await signed('events', body).expect(404);
  });
});

describe('Slack answers streamed from a language model (e2e, fake Slack and model on 127.0.0.1)', () => {
  let t: TestApp;
  let slack: FakePlatform;
  let llm: FakeLlm;
  let projectId: number;
  const postedTs = new WeakMap<PlatformRequest, string>();

  beforeAll(async () => {
    let posted = 0;
    slack = await startFakePlatform((req) => {
      const ts = `7000.${++posted}`;
      postedTs.set(req, ts);
      return { body: { ok: true, channel: 'C1', ts } };
    });
    llm = await startFakeLlm();
    t = await startTestApp({
      KBQA_ADMIN_TOKEN: TOKEN,
      KBQA_SLACK_API_URL: slack.origin,
      KBQA_LLM: 'openai',
      KBQA_LLM_BASE_URL: llm.baseUrl,
      KBQA_LLM_MODEL: 'fake-model',
    });
    projectId = (await t.createProject('harbor')).id;
    const key = (await t.projects.createKey(projectId, 'server')).key;
    const ingested = await t.post('/v1/ingestDocuments', { api_key: key, documents: DOCS }).expect(200);
    await t.waitForTask(ingested.body.task_id);
    await request(t.http)
      .put(`/admin/v1/projects/${projectId}/integrations/slack`)
      .set('Authorization', `Bearer ${TOKEN}`)
      .send({ signing_secret: SIGNING_SECRET, bot_token: BOT_TOKEN })
      .expect(200);
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await slack.close();
    await llm.close();
  });

  it('posts the answer with its first words, edits it as it streams, and ends with sources and buttons', async () => {
    // The model writes its first words, then waits until the test has seen them in Slack.
    let goOn: () => void = () => undefined;
    const released = new Promise<void>((r) => (goOn = r));
    const frame = (content: string) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
    llm.script = {
      kind: 'custom',
      respond: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(frame('Run `harbor deploy` '));
        void released.then(() => {
          res.write(frame('to deploy; the default region '));
          res.write(frame('is eu-west [1].'));
          res.end('data: [DONE]\n\n');
        });
      },
    };
    const eventTs = '5555.000100';
    const body = JSON.stringify({
      type: 'event_callback',
      team_id: 'T1',
      event_id: 'EvStream1',
      event_time: Math.floor(Date.now() / 1000),
      event: {
        type: 'app_mention',
        user: 'U1',
        text: '<@UBOT> how do I deploy?',
        channel: 'C1',
        ts: eventTs,
      },
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature =
      'v0=' + createHmac('sha256', SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest('hex');
    await request(t.http)
      .post(`/integrations/slack/${projectId}/events`)
      .set('Content-Type', 'application/json')
      .set('X-Slack-Request-Timestamp', timestamp)
      .set('X-Slack-Signature', signature)
      .send(body)
      .expect(200);

    // Shown while the model is still writing: the first words, in the question's thread.
    const first = await slack.next();
    expect(first.path).toBe('/chat.postMessage');
    expect(first.body).toMatchObject({ channel: 'C1', thread_ts: eventTs, text: 'Run `harbor deploy` …' });
    expect(first.body.blocks).toBeUndefined();
    goOn();

    // Then edits of that same message, each a longer text, up to the final form.
    const edits: PlatformRequest[] = [];
    for (;;) {
      const edit = await slack.next();
      edits.push(edit);
      expect(edit.path).toBe('/chat.update');
      expect(edit.body).toMatchObject({ channel: 'C1', ts: postedTs.get(first) });
      if (!isPartial(edit)) break;
    }
    const final = edits.at(-1)!;
    expect(String(final.body.text)).toBe('Run `harbor deploy` to deploy; the default region is eu-west [1].');
    const blocks = JSON.stringify(final.body.blocks);
    expect(blocks).toContain('https://docs.example.com/deploy');
    expect(blocks).toContain('kbqa_rate_up');
    const shown = edits.slice(0, -1).map((e) => String(e.body.text).replace(/ …$/, ''));
    for (const text of shown) expect(final.body.text).toEqual(expect.stringContaining(text));
    expect(slack.untaken()).toEqual([]);
  });
});
