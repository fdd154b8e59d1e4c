import { generateKeyPairSync, sign } from 'node:crypto';
import { discordAnswerMessage, discordPublicKey, parseRateButton, verifyDiscordSignature } from './discord';

const NOW = 1_800_000_000_000;

describe(verifyDiscordSignature.name, () => {
  const pair = generateKeyPairSync('ed25519');
  const hex = Buffer.from(pair.publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('hex');
  const key = discordPublicKey(hex);
  const body = Buffer.from('{"type":1}');
  const ts = String(NOW / 1000);
  const signed = (timestamp: string, raw: Buffer) =>
    sign(null, Buffer.concat([Buffer.from(timestamp), raw]), pair.privateKey).toString('hex');

  it("accepts the Ed25519 signature of timestamp + raw body with the application's raw public key", () => {
    expect(verifyDiscordSignature(key, ts, signed(ts, body), body, NOW)).toBe('ok');
  });

  it('refuses another body, another key, a stale timestamp and a malformed signature', () => {
    expect(verifyDiscordSignature(key, ts, signed(ts, Buffer.from('{}')), body, NOW)).toBe('mismatch');
    const other = generateKeyPairSync('ed25519').privateKey;
    const foreign = sign(null, Buffer.concat([Buffer.from(ts), body]), other).toString('hex');
    expect(verifyDiscordSignature(key, ts, foreign, body, NOW)).toBe('mismatch');
    const old = String(NOW / 1000 - 301);
    expect(verifyDiscordSignature(key, old, signed(old, body), body, NOW)).toBe('stale');
    expect(verifyDiscordSignature(key, ts, 'abc', body, NOW)).toBe('missing');
  });
});

describe(parseRateButton.name, () => {
  it('reads the rating and message id of a feedback button, nothing else', () => {
    expect(parseRateButton('kbqa_rate:1:123')).toEqual({ rating: 1, messageId: 123 });
    expect(parseRateButton('kbqa_rate:-1:9')).toEqual({ rating: -1, messageId: 9 });
    expect(parseRateButton('kbqa_rate:2:9')).toBeUndefined();
    expect(parseRateButton('other:1:9')).toBeUndefined();
  });
});

describe(discordAnswerMessage.name, () => {
  it("stays within Discord's 2,000 characters and keeps the sources", () => {
    const message = discordAnswerMessage(
      'x'.repeat(5000),
      [{ title: 'Install', link: 'https://d.example/i' }],
      7,
    ) as {
      content: string;
      components: Array<{ components: Array<{ custom_id: string }> }>;
    };
    expect(message.content.length).toBeLessThanOrEqual(2000);
    expect(message.content).toContain('1. [Install](<https://d.example/i>)');
    expect(message.components[0]!.components.map((c) => c.custom_id)).toEqual([
      'kbqa_rate:1:7',
      'kbqa_rate:-1:7',
    ]);
  });
});
