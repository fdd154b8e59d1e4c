import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { type ErrorCode, KbqaError } from '@kbqa/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../config/config';
import {
  APPLICATION_COMMAND,
  CHANNEL_MESSAGE,
  DEFERRED_CHANNEL_MESSAGE,
  discordAnswerMessage,
  discordPublicKey,
  EPHEMERAL,
  MESSAGE_COMPONENT,
  parseRateButton,
  PING,
  PONG,
  verifyDiscordSignature,
} from './discord';
import { IntegrationAnswers, type Outcome } from './integration-answers';
import { IntegrationsRepository, type Platform } from './integrations.repository';
import { type DiscordSettings, IntegrationsService, type SlackSettings } from './integrations.service';
import { PlatformClient } from './platform-client';
import { SlackLiveAnswer } from './slack-live-answer';
import {
  isQuestion,
  mentionQuestion,
  RATE_DOWN,
  RATE_UP,
  type SlackEvent,
  slackAnswerBlocks,
  toMrkdwn,
  verifySlackSignature,
} from './slack';

export const SLACK_EVENTS_PATH = '/integrations/slack/:projectId/events';
export const SLACK_COMMANDS_PATH = '/integrations/slack/:projectId/commands';
export const DISCORD_INTERACTIONS_PATH = '/integrations/discord/:projectId/interactions';

/** What a platform request carries once its route checked it: the project and the raw body. */
interface Checked<S> {
  projectId: number;
  settings: S;
  body: Buffer;
}

/**
 * The chat platforms' webhooks (docs/integrations.md). Each request is verified against the
 * project's secret over the raw bytes received, then acknowledged at once (Slack wants an answer
 * within 3 s, Discord a deferred response); the answer is computed afterwards and posted through
 * the platform's API. A delivery seen before (Slack's retries, a replayed request) is
 * acknowledged and not answered again: handled events are stored, so this holds across restarts
 * and processes.
 */
@Injectable()
export class IntegrationsEndpoint implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Integrations');
  private readonly client: PlatformClient;
  /** Answers being computed after their acknowledgement; a stop waits for them. */
  private readonly pending = new Set<Promise<void>>();
  private readonly stopping = new AbortController();

  constructor(
    private readonly integrations: IntegrationsService,
    private readonly repository: IntegrationsRepository,
    private readonly answers: IntegrationAnswers,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.client = new PlatformClient(config.integrations);
  }

  async beforeApplicationShutdown(): Promise<void> {
    // Answers in flight finish (their platform calls have a time limit) before the database closes.
    await Promise.allSettled([...this.pending]);
  }

  /** `POST /integrations/slack/:projectId/events`: the Events API (URL verification, mentions, DMs). */
  async slackEvents(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const checked = await this.checkSlack(req, reply);
    if (!checked) return;
    const { projectId, settings } = checked;
    let payload: {
      type?: string;
      challenge?: string;
      event_id?: string;
      team_id?: string;
      event?: SlackEvent;
    };
    try {
      payload = JSON.parse(checked.body.toString('utf8')) as typeof payload;
    } catch {
      return sendError(reply, 400, 'BAD_REQUEST', 'Malformed JSON in request body');
    }
    if (payload.type === 'url_verification') {
      void reply.type('application/json; charset=utf-8').send({ challenge: payload.challenge ?? '' });
      return;
    }
    if (payload.type !== 'event_callback' || !payload.event || typeof payload.event_id !== 'string') {
      void reply.code(200).send();
      return;
    }
    await this.repository.touch(projectId, 'slack', payload.event.type ?? 'event');
    const event = payload.event;
    // Slack resends an event it thinks went unanswered (X-Slack-Retry-Num), with the same event_id.
    if (
      !isQuestion(event) ||
      !(await this.repository.firstDelivery(projectId, 'slack', `event:${payload.event_id}`))
    ) {
      void reply.code(200).send();
      return;
    }
    void reply.code(200).send();
    const channel = event.channel!;
    const threadTs = event.thread_ts ?? event.ts!;
    const team = payload.team_id ?? 'team';
    this.later(`slack event ${payload.event_id}`, async () => {
      const live = this.liveSlackAnswer(settings, channel, threadTs);
      const outcome = await this.answers.ask({
        projectId,
        platform: 'slack',
        question: mentionQuestion(event.text ?? ''),
        threadKey: `${team}:${channel}:${threadTs}`,
        limitKey: team,
        signal: this.stopping.signal,
        onText: (soFar) => live.text(soFar),
      });
      await live.finish(slackMessage(outcome));
    });
  }

  /**
   * `POST /integrations/slack/:projectId/commands`: slash commands (`/ask <question>`) and the
   * interactivity requests of the answers' buttons (`payload`, type block_actions), both
   * application/x-www-form-urlencoded.
   */
  async slackCommands(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const checked = await this.checkSlack(req, reply);
    if (!checked) return;
    const { projectId, settings } = checked;
    const form = new URLSearchParams(checked.body.toString('utf8'));
    const payload = form.get('payload');
    if (payload !== null) return this.slackInteraction(projectId, payload, reply);

    await this.repository.touch(projectId, 'slack', `command ${form.get('command') ?? ''}`.trim());
    const question = (form.get('text') ?? '').trim();
    const channel = form.get('channel_id') ?? '';
    const team = form.get('team_id') ?? 'team';
    if (!question || !channel) {
      void reply.type('application/json; charset=utf-8').send({
        response_type: 'ephemeral',
        text: `Ask a question after the command, e.g. \`${form.get('command') ?? '/ask'} how do I get started?\``,
      });
      return;
    }
    // The acknowledgement shows the question in the channel; the answer follows as a message
    // whose thread then carries the conversation.
    void reply
      .type('application/json; charset=utf-8')
      .send({ response_type: 'in_channel', text: `> ${question.replace(/\n/g, '\n> ')}` });
    const triggerId = form.get('trigger_id') ?? `${team}:${channel}:${question}`;
    this.later(`slack command ${triggerId}`, async () => {
      const live = this.liveSlackAnswer(settings, channel, undefined);
      const outcome = await this.answers.ask({
        projectId,
        platform: 'slack',
        question,
        limitKey: team,
        signal: this.stopping.signal,
        onText: (soFar) => live.text(soFar),
      });
      const ts = await live.finish(slackMessage(outcome));
      if (outcome.kind === 'answer' && ts) {
        await this.repository.linkThread(
          projectId,
          'slack',
          `${team}:${channel}:${ts}`,
          outcome.conversationId,
        );
      }
    });
  }

  private async slackInteraction(projectId: number, raw: string, reply: FastifyReply): Promise<void> {
    let payload: { type?: string; actions?: Array<{ action_id?: string; value?: string }> };
    try {
      payload = JSON.parse(raw) as typeof payload;
    } catch {
      return sendError(reply, 400, 'BAD_REQUEST', 'payload is not JSON');
    }
    await this.repository.touch(projectId, 'slack', payload.type ?? 'interaction');
    if (payload.type === 'block_actions') {
      for (const action of payload.actions ?? []) {
        const rating = action.action_id === RATE_UP ? 1 : action.action_id === RATE_DOWN ? -1 : undefined;
        const messageId = Number(action.value);
        if (rating === undefined || !Number.isSafeInteger(messageId)) continue;
        try {
          await this.answers.rate(projectId, messageId, rating);
        } catch (e) {
          // A button of a deleted message: nothing to rate, and nothing the clicker can do.
          this.logger.warn(`slack rating of message ${messageId} refused: ${KbqaError.from(e).message}`);
        }
      }
    }
    void reply.code(200).send();
  }

  /**
   * The message that shows an answer in the channel (in the thread when given) as it is
   * generated, then in its final form (SlackLiveAnswer).
   */
  private liveSlackAnswer(
    settings: SlackSettings,
    channel: string,
    threadTs: string | undefined,
  ): SlackLiveAnswer {
    return new SlackLiveAnswer(
      {
        post: async (message) => {
          const posted = await this.client.slack('chat.postMessage', settings.botToken, {
            channel,
            ...(threadTs ? { thread_ts: threadTs } : {}),
            unfurl_links: false,
            ...message,
          });
          return typeof posted.ts === 'string' ? posted.ts : undefined;
        },
        update: async (ts, message) => {
          await this.client.slack('chat.update', settings.botToken, { channel, ts, ...message });
        },
      },
      (e) => this.logger.warn(`slack partial answer not shown: ${KbqaError.from(e).message}`),
    );
  }

  /** `POST /integrations/discord/:projectId/interactions`: PING, `/ask`, and the feedback buttons. */
  async discordInteractions(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const checked = await this.check(
      req,
      reply,
      'discord',
      (id) => this.integrations.discord(id),
      (s, body) =>
        verifyDiscordSignature(
          discordPublicKey(s.publicKey),
          header(req, 'x-signature-timestamp'),
          header(req, 'x-signature-ed25519'),
          body,
          Date.now(),
        ),
    );
    if (!checked) return;
    const { projectId, settings } = checked;
    let interaction: {
      id?: string;
      type?: number;
      token?: string;
      guild_id?: string;
      user?: { id?: string };
      member?: { user?: { id?: string } };
      data?: { name?: string; custom_id?: string; options?: Array<{ name?: string; value?: unknown }> };
    };
    try {
      interaction = JSON.parse(checked.body.toString('utf8')) as typeof interaction;
    } catch {
      return sendError(reply, 400, 'BAD_REQUEST', 'Malformed JSON in request body');
    }
    if (interaction.type === PING) {
      void reply.type('application/json; charset=utf-8').send({ type: PONG });
      return;
    }
    await this.repository.touch(
      projectId,
      'discord',
      interaction.data?.name ?? `interaction ${interaction.type}`,
    );
    if (
      typeof interaction.id !== 'string' ||
      !(await this.repository.firstDelivery(projectId, 'discord', `interaction:${interaction.id}`))
    ) {
      return sendError(reply, 401, 'UNAUTHORIZED', 'this interaction was already received');
    }
    if (interaction.type === MESSAGE_COMPONENT) {
      const button = parseRateButton(interaction.data?.custom_id ?? '');
      let text = 'Thanks for your feedback.';
      if (button) {
        try {
          await this.answers.rate(projectId, button.messageId, button.rating);
        } catch {
          text = 'That answer can no longer be rated.';
        }
      }
      void reply.type('application/json; charset=utf-8').send({
        type: CHANNEL_MESSAGE,
        data: { content: text, flags: EPHEMERAL },
      });
      return;
    }
    const question = interaction.data?.options?.find((o) => o.name === 'question')?.value;
    if (interaction.type !== APPLICATION_COMMAND || typeof question !== 'string' || !interaction.token) {
      void reply.type('application/json; charset=utf-8').send({
        type: CHANNEL_MESSAGE,
        data: { content: 'Use `/ask` followed by your question.', flags: EPHEMERAL },
      });
      return;
    }
    void reply.type('application/json; charset=utf-8').send({ type: DEFERRED_CHANNEL_MESSAGE });
    const token = interaction.token;
    const limitKey =
      interaction.guild_id ?? `user:${interaction.user?.id ?? interaction.member?.user?.id ?? 'dm'}`;
    const interactionId = interaction.id;
    this.later(`discord interaction ${interactionId}`, async () => {
      const outcome = await this.answers.ask({
        projectId,
        platform: 'discord',
        question,
        // Each /ask is its own conversation; the link lets analytics count it as Discord's.
        threadKey: `interaction:${interactionId}`,
        limitKey,
        signal: this.stopping.signal,
      });
      await this.followUp(settings, token, outcome);
    });
  }

  private async followUp(settings: DiscordSettings, token: string, outcome: Outcome): Promise<void> {
    const message =
      outcome.kind === 'answer'
        ? discordAnswerMessage(outcome.text, outcome.sources, outcome.messageId)
        : { content: outcome.text };
    await this.client.discord(
      'PATCH',
      `/webhooks/${encodeURIComponent(settings.applicationId)}/${encodeURIComponent(token)}/messages/@original`,
      message,
    );
  }

  private checkSlack(req: FastifyRequest, reply: FastifyReply): Promise<Checked<SlackSettings> | undefined> {
    return this.check(
      req,
      reply,
      'slack',
      (id) => this.integrations.slack(id),
      (s, body) =>
        verifySlackSignature(
          s.signingSecret,
          header(req, 'x-slack-request-timestamp'),
          header(req, 'x-slack-signature'),
          body,
          Date.now(),
        ),
    );
  }

  /**
   * The project's settings when the request's signature holds and it was not received before;
   * otherwise the refusal is sent (404 for a project without this integration, 401 for a
   * missing, stale, wrong or replayed signature) and undefined returned.
   */
  private async check<S>(
    req: FastifyRequest,
    reply: FastifyReply,
    platform: Platform,
    load: (projectId: number) => Promise<S | undefined>,
    verify: (settings: S, body: Buffer) => 'ok' | 'missing' | 'stale' | 'mismatch',
  ): Promise<Checked<S> | undefined> {
    const raw = (req.params as { projectId?: string }).projectId ?? '';
    const projectId = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
    const settings = Number.isSafeInteger(projectId) && projectId > 0 ? await load(projectId) : undefined;
    if (settings === undefined) {
      sendError(reply, 404, 'NOT_FOUND', `no ${platform} integration is configured for project ${raw}`);
      return undefined;
    }
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const result = verify(settings, body);
    if (result !== 'ok') {
      sendError(reply, 401, 'UNAUTHORIZED', SIGNATURE_ERRORS[result]);
      return undefined;
    }
    // The same signed bytes twice: a replay within the age window (retries are signed anew).
    const signature = header(req, platform === 'slack' ? 'x-slack-signature' : 'x-signature-ed25519') ?? '';
    if (!(await this.repository.firstDelivery(projectId, platform, `sig:${signature}`))) {
      sendError(reply, 401, 'UNAUTHORIZED', 'this request was already received');
      return undefined;
    }
    return { projectId, settings, body };
  }

  /** Runs work after the acknowledgement; a failure is logged (the outcome posted already says what the user sees). */
  private later(what: string, work: () => Promise<void>): void {
    const run = work().catch((e: unknown) => {
      this.logger.error(`${what}: ${e instanceof Error ? e.message : String(e)}`);
    });
    this.pending.add(run);
    void run.finally(() => this.pending.delete(run));
  }
}

const SIGNATURE_ERRORS = {
  missing: 'the request is not signed',
  stale: 'the request timestamp is more than 5 minutes away from now',
  mismatch: 'the request signature does not match',
} as const;

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function sendError(reply: FastifyReply, status: number, code: ErrorCode, error: string): void {
  void reply.code(status).type('application/json; charset=utf-8').send({ error, code });
}

/**
 * The webhook routes, as plain Fastify routes in a context of their own whose body parser keeps
 * the raw bytes (every platform signs them; the app-wide parser reads JSON only). Outside the
 * app-wide ApiKeyGuard: the platforms' signatures authenticate these requests.
 */
export function registerIntegrationRoutes(
  instance: FastifyInstance,
  endpoint: IntegrationsEndpoint,
  bodyLimit: number,
): void {
  void instance.register((child, _opts, done) => {
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, next) => next(null, body));
    const route =
      (handle: (req: FastifyRequest, reply: FastifyReply) => Promise<void>) =>
      async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
        try {
          await handle(req, reply);
        } catch (e) {
          // The API's one error shape, never Fastify's own nor a stack trace.
          const err = KbqaError.from(e);
          if (!reply.sent) {
            const message = err.code === 'INTERNAL' ? 'internal error' : err.message;
            sendError(reply, err.status, err.code, message);
          }
        }
      };
    child.post(
      SLACK_EVENTS_PATH,
      route((req, reply) => endpoint.slackEvents(req, reply)),
    );
    child.post(
      SLACK_COMMANDS_PATH,
      route((req, reply) => endpoint.slackCommands(req, reply)),
    );
    child.post(
      DISCORD_INTERACTIONS_PATH,
      route((req, reply) => endpoint.discordInteractions(req, reply)),
    );
    done();
  });
}

/** An outcome as a Slack message: the answer with its sources and rating buttons, or the refusal. */
function slackMessage(outcome: Outcome): Record<string, unknown> {
  return outcome.kind === 'answer'
    ? {
        text: outcome.text.slice(0, 3000) || '(no answer)',
        blocks: slackAnswerBlocks(outcome.text, outcome.sources, outcome.messageId),
      }
    : { text: toMrkdwn(outcome.text) };
}
