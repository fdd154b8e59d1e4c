import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack's own limit: a request signed longer ago than this is refused (a replay). */
export const SLACK_MAX_AGE_S = 5 * 60;

/** action_ids of the feedback buttons; the value is the AI message id. */
export const RATE_UP = 'kbqa_rate_up';
export const RATE_DOWN = 'kbqa_rate_down';

/** Slack's limit on the text of one section block. */
const SECTION_MAX = 3000;

export type SignatureCheck = 'ok' | 'missing' | 'stale' | 'mismatch';

/**
 * Checks Slack's request signature: `v0=` + hex HMAC-SHA256, keyed with the app's signing
 * secret, of `v0:<X-Slack-Request-Timestamp>:<raw body>`. The body must be the bytes as
 * received: a re-serialized JSON or form body would not match.
 */
export function verifySlackSignature(
  signingSecret: string,
  timestamp: string | undefined,
  signature: string | undefined,
  rawBody: Buffer,
  nowMs: number,
): SignatureCheck {
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return 'missing';
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SLACK_MAX_AGE_S) return 'stale';
  const expected =
    'v0=' + createHmac('sha256', signingSecret).update(`v0:${timestamp}:`).update(rawBody).digest('hex');
  const a = Buffer.from(expected);
  const b = Buffer.from(signature);
  return a.length === b.length && timingSafeEqual(a, b) ? 'ok' : 'mismatch';
}

/** The question of a mention: the bot's `<@U…>` mentions removed. */
export function mentionQuestion(text: string): string {
  return text
    .replace(/<@[A-Z0-9]+(?:\|[^>]*)?>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Markdown of an answer as Slack's mrkdwn: links `<url|text>`, bold with single asterisks,
 * headings as bold lines. Code blocks and inline code are the same in both.
 */
export function toMrkdwn(markdown: string): string {
  return markdown
    .split(/(```[\s\S]*?```)/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            .replace(/&/g, '&amp;')
            .replace(/</g, '&lt;')
            .replace(/>/g, '&gt;')
            .replace(
              /\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/g,
              (_m, text: string, url: string) => `<${url}|${text}>`,
            )
            .replace(/\*\*([^*]+)\*\*/g, '*$1*')
            .replace(/^#{1,6}\s+(.+)$/gm, '*$1*'),
    )
    .join('');
}

export interface PostedSource {
  title: string;
  link: string;
}

/** The blocks of an answer: its text, the sources as links, and 👍/👎 buttons rating `messageId`. */
export function slackAnswerBlocks(answer: string, sources: PostedSource[], messageId: number): unknown[] {
  const text = toMrkdwn(answer.trim() || '(no answer)');
  const blocks: unknown[] = [];
  for (let i = 0; i < text.length; i += SECTION_MAX) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: text.slice(i, i + SECTION_MAX) } });
  }
  if (sources.length > 0) {
    const links = sources
      .map(
        (s, i) =>
          `${i + 1}. ${isWebLink(s.link) ? `<${s.link}|${escapeLabel(s.title || s.link)}>` : escapeLabel(s.title || s.link)}`,
      )
      .join('\n');
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `*Sources*\n${links}`.slice(0, SECTION_MAX) }],
    });
  }
  blocks.push({
    type: 'actions',
    block_id: `kbqa_feedback_${messageId}`,
    elements: [
      {
        type: 'button',
        action_id: RATE_UP,
        text: { type: 'plain_text', text: '👍', emoji: true },
        value: String(messageId),
      },
      {
        type: 'button',
        action_id: RATE_DOWN,
        text: { type: 'plain_text', text: '👎', emoji: true },
        value: String(messageId),
      },
    ],
  });
  return blocks;
}

/** Only http(s) links are made clickable; a raw document's source label is shown as text. */
export function isWebLink(link: string): boolean {
  return /^https?:\/\/\S+$/.test(link);
}

function escapeLabel(text: string): string {
  return text.replace(/[<>|&]/g, ' ').trim();
}

/** A Slack-side event worth answering: a mention of the app, or a person's direct message to it. */
export interface SlackEvent {
  type?: string;
  channel_type?: string;
  subtype?: string;
  bot_id?: string;
  user?: string;
  text?: string;
  channel?: string;
  ts?: string;
  thread_ts?: string;
}

export function isQuestion(event: SlackEvent): boolean {
  // Messages of bots (ours among them) and edits, joins and the like are never answered.
  if (event.bot_id !== undefined || event.subtype !== undefined || !event.channel || !event.ts) return false;
  if (event.type === 'app_mention') return true;
  return event.type === 'message' && event.channel_type === 'im';
}
