import { KbqaError } from '@kbqa/core';

/**
 * Calls to the chat platforms' APIs. Their hosts are operator settings (KBQA_SLACK_API_URL,
 * KBQA_DISCORD_API_URL), not addresses a project key or a document chose, so they go through
 * plain fetch rather than the loaders' fetcher that refuses private addresses.
 */
export class PlatformClient {
  constructor(private readonly options: { slackApiUrl: string; discordApiUrl: string; timeoutMs: number }) {}

  /** A Slack Web API method (`chat.postMessage`); Slack answers 200 with `ok: false` on errors. */
  async slack(method: string, botToken: string, body: object): Promise<Record<string, unknown>> {
    const res = await this.send(`${this.options.slackApiUrl}/${method}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${botToken}`, 'Content-Type': 'application/json; charset=utf-8' },
      body: JSON.stringify(body),
    });
    const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok || json.ok !== true) {
      const why = typeof json.error === 'string' ? json.error : `HTTP ${res.status}`;
      throw new KbqaError('FETCH_FAILED', `Slack ${method} failed: ${why}`);
    }
    return json;
  }

  /** A Discord API request; `botToken` for the routes that need the bot (not the interaction webhooks). */
  async discord(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH',
    path: string,
    body: unknown,
    botToken?: string,
  ): Promise<unknown> {
    const res = await this.send(`${this.options.discordApiUrl}${path}`, {
      method,
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        ...(botToken ? { Authorization: `Bot ${botToken}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) {
      throw new KbqaError(
        'FETCH_FAILED',
        `Discord ${method} ${path.replace(/\/webhooks\/.*/, '/webhooks/…')} failed: HTTP ${res.status} ${text.slice(0, 200)}`,
      );
    }
    return text ? (JSON.parse(text) as unknown) : undefined;
  }

  private async send(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, { ...init, signal: AbortSignal.timeout(this.options.timeoutMs) });
    } catch (e) {
      throw new KbqaError(
        'FETCH_FAILED',
        `${new URL(url).host} did not answer: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }
}
