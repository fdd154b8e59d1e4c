import { execFile } from 'node:child_process';
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { join } from 'node:path';
import request from 'supertest';
import { startFakePlatform, type FakePlatform } from './fake-platform';
import { startTestApp, type TestApp } from './helpers';

const CLI = join(__dirname, '..', 'dist', 'cli.js');
const TOKEN = 'operator-token-for-discord-e2e-0123456789';
const BOT_TOKEN = 'discord-bot-token-3f9d1c';
const APPLICATION_ID = '112233445566778899';
/** Questions per minute per guild in this app: the rate-limit test spends a guild's. */
const PER_MIN = 2;

/** Runs the built CLI; never throws on a non-zero exit. */
function kbqa(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('Discord integration (e2e, a fake Discord API on 127.0.0.1)', () => {
  let t: TestApp;
  let discord: FakePlatform;
  let projectId: number;
  let privateKey: KeyObject;
  let publicKeyHex: string;
  let interactionCounter = 0;

  const admin = (method: 'get' | 'put' | 'delete', path: string, body?: object) => {
    const req = request(t.http)[method](path).set('Authorization', `Bearer ${TOKEN}`);
    return body === undefined ? req : req.send(body);
  };

  /** An interaction signed as Discord signs it: Ed25519 over timestamp + raw body. */
  function signed(body: string, options: { timestamp?: number; key?: KeyObject } = {}) {
    const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
    const signature = sign(null, Buffer.from(timestamp + body), options.key ?? privateKey).toString('hex');
    return request(t.http)
      .post(`/integrations/discord/${projectId}/interactions`)
      .set('Content-Type', 'application/json')
      .set('X-Signature-Ed25519', signature)
      .set('X-Signature-Timestamp', timestamp)
      .send(body);
  }

  function ask(question: string, guild = 'G1') {
    const id = `9000000000000${++interactionCounter}`;
    const token = `interaction-token-${interactionCounter}`;
    const body = JSON.stringify({
      id,
      type: 2,
      token,
      application_id: APPLICATION_ID,
      guild_id: guild,
      member: { user: { id: 'U1' } },
      data: { name: 'ask', type: 1, options: [{ name: 'question', type: 3, value: question }] },
    });
    return { id, token, body };
  }

  beforeAll(async () => {
    const pair = generateKeyPairSync('ed25519');
    privateKey = pair.privateKey;
    const jwk = pair.publicKey.export({ format: 'jwk' });
    publicKeyHex = Buffer.from(jwk.x!, 'base64url').toString('hex');
    discord = await startFakePlatform((req) => ({
      body: req.path.endsWith('/commands') ? { id: 'cmd-1', name: 'ask' } : { id: 'msg-1' },
    }));
    t = await startTestApp({
      KBQA_ADMIN_TOKEN: TOKEN,
      KBQA_DISCORD_API_URL: discord.origin,
      KBQA_RATE_CHAT_PER_MIN: String(PER_MIN),
    });
    projectId = (await t.createProject('harbor')).id;
    const key = (await t.projects.createKey(projectId, 'server')).key;
    const ingested = await t
      .post('/v1/ingestDocuments', {
        api_key: key,
        documents: [
          {
            source: 'https://docs.example.com/install',
            content:
              '# Installing Harbor\n\nInstall Harbor with `npm install harbor-cli`. Harbor needs Node 20 or newer.',
          },
        ],
      })
      .expect(200);
    await t.waitForTask(ingested.body.task_id);
    // Boots the app and ingests on shared cores: more than the default 30 s is no failure.
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await discord.close();
  });
  afterEach(() => {
    expect(discord.untaken()).toEqual([]);
  });

  it('is configured through the operator API, the bot token sealed and never shown', async () => {
    const bad = await admin('put', `/admin/v1/projects/${projectId}/integrations/discord`, {
      public_key: 'not-hex',
      application_id: APPLICATION_ID,
      bot_token: BOT_TOKEN,
    }).expect(400);
    expect(bad.body).toEqual({ error: expect.stringContaining('public_key'), code: 'BAD_REQUEST' });
    const put = await admin('put', `/admin/v1/projects/${projectId}/integrations/discord`, {
      public_key: publicKeyHex,
      application_id: APPLICATION_ID,
      bot_token: BOT_TOKEN,
    }).expect(200);
    expect(put.body).toMatchObject({
      platform: 'discord',
      configured: true,
      settings: { public_key: publicKeyHex, application_id: APPLICATION_ID, bot_token: '••••' },
      endpoints: { interactions: `/integrations/discord/${projectId}/interactions` },
    });
    const list = await admin('get', `/admin/v1/projects/${projectId}/integrations`).expect(200);
    expect(
      list.body.integrations.map((i: { platform: string; configured: boolean }) => [
        i.platform,
        i.configured,
      ]),
    ).toEqual([
      ['slack', false],
      ['discord', true],
    ]);
    expect(JSON.stringify(list.body)).not.toContain(BOT_TOKEN);
  });

  it('answers PING, and refuses unsigned, badly signed and stale requests with 401', async () => {
    const ping = JSON.stringify({ id: '1', type: 1, application_id: APPLICATION_ID });
    const pong = await signed(ping).expect(200);
    expect(pong.body).toEqual({ type: 1 });

    const unsigned = await request(t.http)
      .post(`/integrations/discord/${projectId}/interactions`)
      .set('Content-Type', 'application/json')
      .send(ping)
      .expect(401);
    expect(unsigned.body).toEqual({ error: 'the request is not signed', code: 'UNAUTHORIZED' });
    const other = generateKeyPairSync('ed25519').privateKey;
    const wrong = await signed(JSON.stringify({ id: '2', type: 1 }), { key: other }).expect(401);
    expect(wrong.body).toEqual({ error: 'the request signature does not match', code: 'UNAUTHORIZED' });
    const stale = await signed(JSON.stringify({ id: '3', type: 1 }), {
      timestamp: Math.floor(Date.now() / 1000) - 10 * 60,
    }).expect(401);
    expect(stale.body.code).toBe('UNAUTHORIZED');
  });

  it('defers /ask at once, then edits the deferred message with the answer, sources and buttons', async () => {
    const { body, token } = ask('how do I install harbor?');
    const at = Math.floor(Date.now() / 1000);
    const deferred = await signed(body, { timestamp: at }).expect(200);
    expect(deferred.body).toEqual({ type: 5 });
    const patch = await discord.next();
    expect(patch.method).toBe('PATCH');
    expect(patch.path).toBe(`/webhooks/${APPLICATION_ID}/${token}/messages/@original`);
    expect(String(patch.body.content)).toContain('npm install harbor-cli');
    expect(String(patch.body.content)).toContain('(<https://docs.example.com/install>)');
    const buttons = (patch.body.components as Array<{ components: Array<{ custom_id: string }> }>)[0]!
      .components;
    expect(buttons.map((b) => b.custom_id.split(':').slice(0, 2).join(':'))).toEqual([
      'kbqa_rate:1',
      'kbqa_rate:-1',
    ]);

    // Replayed (signed again): the interaction was handled, it is not answered twice.
    const replay = await signed(body, { timestamp: at - 30 }).expect(401);
    expect(replay.body.error).toBe('this interaction was already received');

    // A click of 👎 is the answer's rating.
    const messageId = Number(buttons[1]!.custom_id.split(':')[2]);
    const click = JSON.stringify({
      id: `click-${messageId}`,
      type: 3,
      token: 'click-token',
      application_id: APPLICATION_ID,
      guild_id: 'G1',
      data: { custom_id: buttons[1]!.custom_id, component_type: 2 },
    });
    const clicked = await signed(click).expect(200);
    expect(clicked.body).toEqual({ type: 4, data: { content: 'Thanks for your feedback.', flags: 64 } });
    const [rated] = await t.query<{ rating_value: number; sender: string }>(
      'SELECT rating_value, sender FROM messages WHERE id = ?',
      [messageId],
    );
    expect(rated).toEqual({ rating_value: -1, sender: 'AI' });
  });

  it('tells a guild over the chat rate limit so in the follow-up', async () => {
    const contents: string[] = [];
    for (let i = 0; i <= PER_MIN; i++) {
      await signed(ask(`how do I install harbor? (${i})`, 'G-busy').body).expect(200, { type: 5 });
      contents.push(String((await discord.next()).body.content));
    }
    expect(contents.slice(0, PER_MIN).every((c) => c.includes('harbor-cli'))).toBe(true);
    expect(contents[PER_MIN]).toMatch(/Too many questions from this server/);
  });

  it('counts the questions asked with /ask as Discord questions in the analytics', async () => {
    const res = await admin('get', `/admin/v1/projects/${projectId}/analytics`).expect(200);
    // One /ask, then PER_MIN answered and one refused before its question was stored.
    expect(res.body.questions_by_channel).toEqual({
      api: 0,
      widget: 0,
      slack: 0,
      discord: 1 + PER_MIN,
      mcp: 0,
    });
  });

  it('registers /ask with the bot token through the command line', async () => {
    const res = await kbqa(['integrations', 'discord', 'register', '--project', String(projectId)], {
      KBQA_DATA_DIR: t.dataDir,
      KBQA_DISCORD_API_URL: discord.origin,
    });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`registered /ask for Discord application ${APPLICATION_ID}`);
    const registered = await discord.next();
    expect(registered.method).toBe('POST');
    expect(registered.path).toBe(`/applications/${APPLICATION_ID}/commands`);
    expect(registered.headers.authorization).toBe(`Bot ${BOT_TOKEN}`);
    expect(registered.body).toMatchObject({
      name: 'ask',
      options: [{ name: 'question', type: 3, required: true }],
    });

    const missing = await kbqa(['integrations', 'discord', 'register', '--project', '999999'], {
      KBQA_DATA_DIR: t.dataDir,
      KBQA_DISCORD_API_URL: discord.origin,
    });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('no discord integration');
    // Two starts of the command line (node, Nest, the database) on shared cores.
  }, 120_000);
});
