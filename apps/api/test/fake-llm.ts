import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: {
    model: string;
    stream?: boolean;
    temperature?: number;
    messages: Array<{
      role: string;
      content: string;
      tool_call_id?: string;
      tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    }>;
    /** OpenAI function tools, when the service offered some. */
    tools?: Array<{ type: string; function: { name: string; description: string; parameters: unknown } }>;
  };
}

/** How the fake answers a streamed completion, chosen per test. */
export type StreamScript =
  | { kind: 'answer'; pieces: string[]; delayMs?: number }
  | { kind: 'error'; status: number }
  | { kind: 'stall'; pieces: string[] }
  /** Any answer a test writes itself (tool calls, JSON to a streamed request). */
  | { kind: 'custom'; respond: (req: RecordedRequest, res: ServerResponse) => void };

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
      if (fake.script.kind === 'custom' && recorded.body.stream) {
        fake.script.respond(recorded, res);
        return;
      }
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
      if (script.kind === 'custom') return;
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

/** A call the fake model makes: `arguments` is the JSON text the model writes. */
export interface FakeToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * A streamed completion that calls tools, as OpenAI streams it: the id and name in a first
 * fragment per call, the arguments split over the next ones, then `finish_reason: tool_calls`.
 */
export function streamToolCalls(res: ServerResponse, calls: FakeToolCall[]): void {
  const frame = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(frame({ role: 'assistant', content: null }));
  calls.forEach((c, index) => {
    res.write(
      frame({
        tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }],
      }),
    );
    const half = Math.floor(c.arguments.length / 2);
    for (const part of [c.arguments.slice(0, half), c.arguments.slice(half)]) {
      res.write(frame({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  res.end(frame({}, 'tool_calls') + 'data: [DONE]\n\n');
}

/** A streamed answer of plain text pieces. */
export function streamText(res: ServerResponse, pieces: string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const content of pieces) {
    res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`);
  }
  res.end(
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
  );
}

/** A whole (non-streamed) completion: text, or tool calls in `message.tool_calls`. */
export function jsonCompletion(
  res: ServerResponse,
  answer: { content?: string; calls?: FakeToolCall[] },
): void {
  const message: Record<string, unknown> = { role: 'assistant', content: answer.content ?? null };
  if (answer.calls) {
    message.tool_calls = answer.calls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      choices: [{ index: 0, message, finish_reason: answer.calls ? 'tool_calls' : 'stop' }],
    }),
  );
}

/**
 * Scripts `llm` as a model that uses tools once: while tools are offered and no tool result is in
 * the conversation yet it calls `calls`, then it answers `answer` (streamed as `pieces`, or as
 * one JSON completion when `json`).
 */
export function callToolsThenAnswer(
  llm: FakeLlm,
  calls: FakeToolCall[],
  answer: string,
  options: { json?: boolean; pieces?: string[] } = {},
): void {
  llm.script = {
    kind: 'custom',
    respond: (req: RecordedRequest, res: ServerResponse) => {
      const called = req.body.messages.some((m) => m.role === 'tool');
      if (req.body.tools && !called) {
        if (options.json) jsonCompletion(res, { calls });
        else streamToolCalls(res, calls);
      } else if (options.json) jsonCompletion(res, { content: answer });
      else streamText(res, options.pieces ?? [answer]);
    },
  };
}
