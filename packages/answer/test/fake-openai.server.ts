import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export type Handler = (
  request: RecordedRequest,
  res: ServerResponse,
  raw: IncomingMessage,
) => void | Promise<void>;

/** An OpenAI-compatible endpoint on 127.0.0.1 whose behaviour each test scripts. */
export class FakeOpenAiServer {
  readonly requests: RecordedRequest[] = [];
  handler: Handler = (_request, res) => {
    res.writeHead(500).end();
  };
  private readonly server = createServer((raw, res) => {
    const chunks: Buffer[] = [];
    raw.on('data', (chunk: Buffer) => chunks.push(chunk));
    raw.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep the raw text
      }
      const request = { method: raw.method ?? '', url: raw.url ?? '', headers: raw.headers, body };
      this.requests.push(request);
      res.socket?.setNoDelay(true);
      void Promise.resolve(this.handler(request, res, raw)).catch(() => res.destroy());
    });
  });

  get baseUrl(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  static async start(): Promise<FakeOpenAiServer> {
    const fake = new FakeOpenAiServer();
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function deltaEvent(content: string, finishReason: string | null = null): string {
  const choice = { index: 0, delta: content ? { content } : {}, finish_reason: finishReason };
  return `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [choice] })}\n\n`;
}

export function tick(ms = 1): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Writes `text` in pieces of `size` bytes, one TCP write each (Nagle is off), pausing between them. */
export async function writeInPieces(res: ServerResponse, text: string, size: number): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length && !res.destroyed; i += size) {
    res.write(bytes.subarray(i, i + size));
    await tick();
  }
}

export function startStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

export function jsonReply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
