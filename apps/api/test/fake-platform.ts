import type { IncomingMessage, ServerResponse } from 'node:http';
import { startServer, type TestServer } from '@kbqa/core/testing';

/** One request the fake platform API received. */
export interface PlatformRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface FakePlatform extends TestServer {
  /** The next request not taken yet: resolves when it arrives (or at once when it already did). */
  next(): Promise<PlatformRequest>;
  /** Requests received and not taken yet. */
  untaken(): PlatformRequest[];
}

/**
 * A chat platform's API on 127.0.0.1 (Slack's Web API or Discord's), recording every request in
 * order. `answer` says what to send back; tests wait on `next()`, never on a timer.
 */
export async function startFakePlatform(
  answer: (req: PlatformRequest) => { status?: number; body: unknown },
): Promise<FakePlatform> {
  const queue: PlatformRequest[] = [];
  const waiters: Array<(r: PlatformRequest) => void> = [];
  const server = await startServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const received: PlatformRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {},
      };
      const out = answer(received);
      res.writeHead(out.status ?? 200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(out.body));
      const waiter = waiters.shift();
      if (waiter) waiter(received);
      else queue.push(received);
    });
  });
  return {
    ...server,
    next: () => {
      const first = queue.shift();
      return first ? Promise.resolve(first) : new Promise((resolve) => waiters.push(resolve));
    },
    untaken: () => [...queue],
  };
}
