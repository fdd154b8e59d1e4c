import { createHmac } from 'node:crypto';
import { isQuestion, mentionQuestion, slackAnswerBlocks, toMrkdwn, verifySlackSignature } from './slack';

const SECRET = 'signing-secret';
const NOW = 1_800_000_000_000;

function signature(timestamp: string, body: string, secret = SECRET): string {
  return 'v0=' + createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');
}

describe(verifySlackSignature.name, () => {
  const body = Buffer.from('{"type":"event_callback"}');
  const ts = String(NOW / 1000);

  it('accepts the HMAC of v0:timestamp:raw body', () => {
    expect(verifySlackSignature(SECRET, ts, signature(ts, body.toString()), body, NOW)).toBe('ok');
  });

  it('refuses another secret, another body and a missing header', () => {
    expect(verifySlackSignature(SECRET, ts, signature(ts, body.toString(), 'other'), body, NOW)).toBe(
      'mismatch',
    );
    expect(verifySlackSignature(SECRET, ts, signature(ts, '{}'), body, NOW)).toBe('mismatch');
    expect(verifySlackSignature(SECRET, ts, undefined, body, NOW)).toBe('missing');
    expect(verifySlackSignature(SECRET, 'soon', signature('soon', body.toString()), body, NOW)).toBe(
      'missing',
    );
  });

  it('refuses a timestamp more than 5 minutes away, either way', () => {
    for (const offset of [-301, 301]) {
      const old = String(NOW / 1000 + offset);
      expect(verifySlackSignature(SECRET, old, signature(old, body.toString()), body, NOW)).toBe('stale');
    }
    const edge = String(NOW / 1000 - 300);
    expect(verifySlackSignature(SECRET, edge, signature(edge, body.toString()), body, NOW)).toBe('ok');
  });
});

describe(mentionQuestion.name, () => {
  it('drops the mentions of the app', () => {
    expect(mentionQuestion('<@U0BOT> how do I  deploy? <@U0BOT|kbqa>')).toBe('how do I deploy?');
  });
});

describe(isQuestion.name, () => {
  it('answers mentions and direct messages, never bots, edits or channel chatter', () => {
    const base = { channel: 'C1', ts: '1.1', text: 'hi' };
    expect(isQuestion({ ...base, type: 'app_mention' })).toBe(true);
    expect(isQuestion({ ...base, type: 'message', channel_type: 'im' })).toBe(true);
    expect(isQuestion({ ...base, type: 'message', channel_type: 'channel' })).toBe(false);
    expect(isQuestion({ ...base, type: 'message', channel_type: 'im', bot_id: 'B1' })).toBe(false);
    expect(isQuestion({ ...base, type: 'message', channel_type: 'im', subtype: 'message_changed' })).toBe(
      false,
    );
  });
});

describe(toMrkdwn.name, () => {
  it('turns Markdown links, bold and headings into mrkdwn and escapes the rest', () => {
    expect(toMrkdwn('## Setup\nSee [the guide](https://x.dev/g) for **all** a < b')).toBe(
      '*Setup*\nSee <https://x.dev/g|the guide> for *all* a &lt; b',
    );
  });

  it('leaves code blocks alone', () => {
    expect(toMrkdwn('```\na < b **c**\n```')).toBe('```\na < b **c**\n```');
  });
});

describe(slackAnswerBlocks.name, () => {
  it('links web sources, shows other sources as text, and carries the message id on both buttons', () => {
    const blocks = slackAnswerBlocks(
      'Answer',
      [
        { title: 'Install', link: 'https://docs.example.com/install' },
        { title: 'notes.md', link: 'notes.md' },
      ],
      42,
    ) as Array<{ type: string; elements?: Array<{ text?: string; value?: string; action_id?: string }> }>;
    expect(blocks.map((b) => b.type)).toEqual(['section', 'context', 'actions']);
    expect(blocks[1]!.elements![0]!.text).toBe(
      '*Sources*\n1. <https://docs.example.com/install|Install>\n2. notes.md',
    );
    expect(blocks[2]!.elements!.map((e) => [e.action_id, e.value])).toEqual([
      ['kbqa_rate_up', '42'],
      ['kbqa_rate_down', '42'],
    ]);
  });
});
