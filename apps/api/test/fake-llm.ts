import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: {
    model: string;
    stream?: boolean;
    temperature?: number;
    messages: Array<{ role: string; content: string }>;
  };
}

/** How the fake answers a streamed completion, chosen per test. */
export type StreamScript =
  | { kind: 'answer'; pieces: string[]; delayMs?: number }
  | { kind: 'error'; status: number }
  | { kind: 'stall'; pieces: string[] };

export interface FakeLlm {
  baseUrl: string;
  requests: RecordedRequest[];
  /** Answer of the next streamed completions. */
  script: StreamScript;
  /** Answer of non-streamed completions (question rewriting, summaries). */
  reply: (req: RecordedRequest) => string;
  /** Resolves when a streamed response's connection closed before it was finished. */
  clientGone: Promise<void>;
  close(): Promise<void>;
}

/** An OpenAI-compatible chat completions server on 127.0.0.1, for tests only. */
export async function startFakeLlm(): Promise<FakeLlm> {
  let markGone: () => void = () => undefined;
  const fake: FakeLlm = {
    baseUrl: '',
    requests: [],
    script: { kind: 'answer', pieces: ['ok'] },
    reply: () => 'rewritten question',
    clientGone: new Promise<void>((r) => (markGone = r)),
    close: () => Promise.resolve(),
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        path: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(raw || '{}'),
      };
      fake.requests.push(recorded);
      if (!recorded.body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            choices: [{ index: 0, message: { role: 'assistant', content: fake.reply(recorded) } }],
          }),
        );
        return;
      }
      const script = fake.script;
      if (script.kind === 'error') {
        res.writeHead(script.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'upstream exploded', type: 'server_error' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.on('close', () => {
        if (!res.writableFinished) markGone();
      });
      const frame = (content: string) =>
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
      const pieces = [...script.pieces];
      const next = () => {
        if (res.destroyed) return;
        const piece = pieces.shift();
        if (piece === undefined) {
          if (script.kind === 'stall') return; // never finishes
          res.end('data: [DONE]\n\n');
          return;
        }
        res.write(frame(piece));
        setTimeout(next, script.kind === 'answer' ? (script.delayMs ?? 1) : 1);
      };
      next();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
