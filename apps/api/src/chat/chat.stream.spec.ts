import 'reflect-metadata';
import type { ServerResponse } from 'node:http';
import { KbqaError, type SearchHit } from '@kbqa/core';
import type { ChatTurn } from './chat.service';
import { streamChatTurn } from './chat.stream';

/** A response that records what is written, as event payloads. */
function fakeResponse() {
  const writes: string[] = [];
  const res = {
    status: 0,
    headers: {} as Record<string, string>,
    ended: false,
    writeHead(status: number, headers: Record<string, string>) {
      this.status = status;
      this.headers = headers;
    },
    flushHeaders: () => undefined,
    write(chunk: string) {
      writes.push(chunk);
      return true;
    },
    end() {
      this.ended = true;
    },
  };
  const events = () =>
    writes.map((w) => {
      expect(w).toMatch(/^data: .*\n\n$/);
      return JSON.parse(w.slice('data: '.length)) as { chunk: string; metadata?: unknown };
    });
  return { res, raw: res as unknown as ServerResponse, events };
}

const hit: SearchHit = {
  chunkId: 7,
  sourceId: 1,
  source: 'https://docs.example.com/a',
  link: 'https://docs.example.com/a',
  title: 'A',
  content: 'alpha',
  headingPath: [],
  score: 0.5,
  metadata: {},
} as unknown as SearchHit;

function turn(pieces: AsyncIterable<string>, toolsOffered = false): ChatTurn {
  return {
    projectId: 1,
    conversationId: 2,
    humanMessageId: 3,
    sources: [hit],
    pieces,
    toolsOffered,
    toolsUsed: [],
  };
}

async function* from(...pieces: Array<string | Error>): AsyncIterable<string> {
  for (const p of pieces) {
    await Promise.resolve();
    if (p instanceof Error) throw p;
    yield p;
  }
}

describe(streamChatTurn.name, () => {
  const logger = { error: jest.fn() };
  beforeEach(() => logger.error.mockClear());

  it('sends sources first, then each piece, then the message id, and stores the whole answer', async () => {
    const { res, raw, events } = fakeResponse();
    const finish = jest.fn(() => Promise.resolve(42));
    await streamChatTurn(raw, turn(from('Hello ', 'world')), finish, new AbortController().signal, logger);
    expect(res.status).toBe(200);
    expect(res.headers['Content-Type']).toBe('text/event-stream; charset=utf-8');
    expect(events().map((e) => e.chunk)).toEqual(['<|source|>', 'Hello ', 'world', '<|message_id|>']);
    expect(events()[0]?.metadata).toEqual([expect.objectContaining({ link: 'https://docs.example.com/a' })]);
    expect(events()[3]?.metadata).toBe(42);
    expect(finish).toHaveBeenCalledWith('Hello world', true);
    expect(res.ended).toBe(true);
  });

  it('sends loading_tools after the sources, then each call and its output, before the answer', async () => {
    const { raw, events } = fakeResponse();
    const t = turn(from(), true);
    t.pieces = (async function* () {
      await Promise.resolve();
      t.onToolEvent?.({ type: 'called', callId: 'a', name: 'stock' });
      t.onToolEvent?.({
        type: 'result',
        callId: 'a',
        name: 'stock',
        result: { output: '3', has_error: false },
      });
      t.onToolEvent?.({ type: 'called', callId: 'b', name: 'order' });
      t.onToolEvent?.({
        type: 'result',
        callId: 'b',
        name: 'order',
        result: { output: '', has_error: true, error: 'HTTP 500' },
      });
      yield 'Three.';
    })();
    await streamChatTurn(raw, t, () => Promise.resolve(1), new AbortController().signal, logger);
    expect(events().slice(1)).toEqual([
      { chunk: '<|loading_tools|>', metadata: true },
      { chunk: '<|tool_called|>', metadata: { name: 'stock' } },
      { chunk: '<|tool_output|>', metadata: { data: '3' } },
      { chunk: '<|tool_called|>', metadata: { name: 'order' } },
      { chunk: '<|tool_output|>', metadata: { data: 'HTTP 500' } },
      { chunk: 'Three.' },
      { chunk: '<|message_id|>', metadata: 1 },
    ]);
  });

  it('sends no tool event when the model was offered no tools', async () => {
    const { raw, events } = fakeResponse();
    await streamChatTurn(
      raw,
      turn(from('ok')),
      () => Promise.resolve(1),
      new AbortController().signal,
      logger,
    );
    expect(events().map((e) => e.chunk)).toEqual(['<|source|>', 'ok', '<|message_id|>']);
  });

  it('tells a failing answer as an error event with its code, and stores what was said as incomplete', async () => {
    const { raw, events } = fakeResponse();
    const finish = jest.fn(() => Promise.resolve(5));
    const failure = new KbqaError('LLM_ERROR', 'the model stopped');
    await streamChatTurn(raw, turn(from('Part', failure)), finish, new AbortController().signal, logger);
    expect(events().map((e) => e.chunk)).toEqual(['<|source|>', 'Part', '<|error|>', '<|message_id|>']);
    expect(events()[2]?.metadata).toEqual({ error: 'the model stopped', code: 'LLM_ERROR' });
    expect(finish).toHaveBeenCalledWith('Part', false);
    expect(logger.error).not.toHaveBeenCalled(); // a known failure, not an internal one
  });

  it('writes nothing more once the client has gone, and stores the answer as incomplete', async () => {
    const { res, raw, events } = fakeResponse();
    const controller = new AbortController();
    async function* pieces() {
      await Promise.resolve();
      yield 'first';
      controller.abort();
      yield 'second';
    }
    const finish = jest.fn(() => Promise.resolve(9));
    await streamChatTurn(raw, turn(pieces()), finish, controller.signal, logger);
    expect(events().map((e) => e.chunk)).toEqual(['<|source|>', 'first']);
    expect(finish).toHaveBeenCalledWith('first', false);
    expect(res.ended).toBe(false);
  });

  it('tells a storage failure after the headers as an error event, logs it and ends the stream', async () => {
    const { res, raw, events } = fakeResponse();
    const finish = jest.fn(() => Promise.reject(new Error('database or disk is full')));
    await streamChatTurn(raw, turn(from('ok')), finish, new AbortController().signal, logger);
    expect(events().map((e) => e.chunk)).toEqual(['<|source|>', 'ok', '<|error|>']);
    expect(events()[2]?.metadata).toEqual({
      error: expect.stringContaining('disk'),
      code: expect.any(String),
    });
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(res.ended).toBe(true);
  });
});
