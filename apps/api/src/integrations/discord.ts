import { createPublicKey, type KeyObject, verify } from 'node:crypto';

/** Interaction types (Discord API, "Interaction Object"). */
export const PING = 1;
export const APPLICATION_COMMAND = 2;
export const MESSAGE_COMPONENT = 3;
/** Response types. */
export const PONG = 1;
export const CHANNEL_MESSAGE = 4;
export const DEFERRED_CHANNEL_MESSAGE = 5;
/** The message flag that shows a response only to the user who clicked. */
export const EPHEMERAL = 64;

/** Requests signed longer ago than this are refused, as for Slack: a captured request cannot be replayed later. */
export const DISCORD_MAX_AGE_S = 5 * 60;

/** Prefix of the feedback buttons' custom_id: `kbqa_rate:<1|-1>:<message id>`. */
const RATE_PREFIX = 'kbqa_rate';

/** Discord's limit on a message's content. */
const CONTENT_MAX = 2000;

/** The `/ask` command as `kbqa integrations discord register` registers it. */
export const ASK_COMMAND = {
  name: 'ask',
  type: 1,
  description: 'Ask the documentation a question',
  options: [
    { type: 3, name: 'question', description: 'What you want to know', required: true, max_length: 2000 },
  ],
} as const;

/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The application's public key (64 hex digits, as Discord shows it) as a key node:crypto verifies with. */
export function discordPublicKey(hex: string): KeyObject {
  return createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(hex, 'hex')]),
    format: 'der',
    type: 'spki',
  });
}

export type DiscordCheck = 'ok' | 'missing' | 'stale' | 'mismatch';

/** Checks X-Signature-Ed25519: the signature of the timestamp followed by the raw body. */
export function verifyDiscordSignature(
  key: KeyObject,
  timestamp: string | undefined,
  signature: string | undefined,
  rawBody: Buffer,
  nowMs: number,
): DiscordCheck {
  if (!timestamp || !signature || !/^[0-9a-fA-F]{128}$/.test(signature) || !/^\d{1,12}$/.test(timestamp))
    return 'missing';
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > DISCORD_MAX_AGE_S) return 'stale';
  const ok = verify(
    null,
    Buffer.concat([Buffer.from(timestamp, 'utf8'), rawBody]),
    key,
    Buffer.from(signature, 'hex'),
  );
  return ok ? 'ok' : 'mismatch';
}

export interface PostedSource {
  title: string;
  link: string;
}

/**
 * The follow-up message of an answer: its text, the sources as Markdown links (Discord renders
 * them in messages sent by webhooks), and 👍/👎 buttons. Cut to Discord's 2,000 characters,
 * sources kept.
 */
export function discordAnswerMessage(answer: string, sources: PostedSource[], messageId: number): object {
  const links = sources
    .map(
      (s, i) =>
        `${i + 1}. ${/^https?:\/\/\S+$/.test(s.link) ? `[${label(s.title || s.link)}](<${s.link}>)` : label(s.title || s.link)}`,
    )
    .join('\n');
  const tail = links ? `\n\n**Sources**\n${links}` : '';
  const room = Math.max(100, CONTENT_MAX - tail.length);
  const text = answer.trim() || '(no answer)';
  const body = text.length > room ? `${text.slice(0, room - 1)}…` : text;
  return {
    content: `${body}${tail}`.slice(0, CONTENT_MAX),
    components: [
      {
        type: 1,
        components: [
          { type: 2, style: 2, emoji: { name: '👍' }, custom_id: `${RATE_PREFIX}:1:${messageId}` },
          { type: 2, style: 2, emoji: { name: '👎' }, custom_id: `${RATE_PREFIX}:-1:${messageId}` },
        ],
      },
    ],
  };
}

/** The rating and message of a feedback button's custom_id; undefined for any other id. */
export function parseRateButton(customId: string): { rating: 1 | -1; messageId: number } | undefined {
  const m = /^kbqa_rate:(1|-1):(\d{1,16})$/.exec(customId);
  if (!m) return undefined;
  return { rating: m[1] === '1' ? 1 : -1, messageId: Number(m[2]) };
}

function label(text: string): string {
  return text.replace(/[[\]]/g, ' ').trim().slice(0, 200);
}
