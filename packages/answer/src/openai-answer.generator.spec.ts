import {
  KbqaError,
  type AnswerRequest,
  type AnswerSource,
  type AnswerTool,
  type AnswerToolResult,
} from '@kbqa/core';
import type { ServerResponse } from 'node:http';
import {
  FakeOpenAiServer,
  deltaEvent,
  jsonReply,
  startStream,
  tick,
  writeInPieces,
  type RecordedRequest,
} from '../test/fake-openai.server';
import {
  MAX_TOOL_CALLS_PER_ROUND,
  OpenAiAnswerGenerator,
  type OpenAiAnswerGeneratorOptions,
} from './openai-answer.generator';
import { DEFAULT_SYSTEM_PROMPT } from './openai.prompts';
import { collect, request, sources } from '../test/model-request';

const API_KEY = 'sk-test-0123456789abcdef';

async function failure(iterable: AsyncIterable<string>): Promise<KbqaError> {
  try {
    await collect(iterable);
  } catch (error) {
    if (error instanceof KbqaError) return error;
    throw error;
  }
  throw new Error('the stream did not fail');
}

function bodyOf(recorded: RecordedRequest | undefined): Record<string, unknown> {
  return recorded?.body as Record<string, unknown>;
}

type Messages = Array<{ role: string; content: string }>;

describe(OpenAiAnswerGenerator.name, () => {
  let server: FakeOpenAiServer;
  let generator: OpenAiAnswerGenerator;
  const make = (options: Partial<OpenAiAnswerGeneratorOptions> = {}): OpenAiAnswerGenerator =>
    new OpenAiAnswerGenerator({
      baseUrl: server.baseUrl,
      model: 'test-model',
      apiKey: API_KEY,
      timeoutMs: 5_000,
      idleTimeoutMs: 2_000,
      ...options,
    });

  beforeEach(async () => {
    server = await FakeOpenAiServer.start();
    generator = make();
  });

  afterEach(async () => {
    await server.close();
  });

  it('streams the deltas of a stream written in small split pieces and drops unknown citations', async () => {
    server.handler = async (_req, res) => {
      startStream(res);
      const stream =
        ': keep-alive\n\n' +
        deltaEvent('').replace(/\n/g, '\r\n') +
        deltaEvent('Use `fastify.register` [') +
        deltaEvent('1]. Plugins are ') +
        deltaEvent('encapsulated [7') +
        deltaEvent('] and cited [2].') +
        deltaEvent('', 'stop') +
        'data: [DONE]\n\n';
      await writeInPieces(res, stream, 7);
      res.end();
    };
    const pieces = await collect(generator.generate(request()));
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.join('')).toBe('Use `fastify.register` [1]. Plugins are encapsulated and cited [2].');
  });

  it('sends the model, temperature, stream flag, numbered sources, context, system prompt and history', async () => {
    server.handler = (_req, res) => {
      startStream(res);
      res.end(deltaEvent('Done [1].', 'stop') + 'data: [DONE]\n\n');
    };
    await collect(
      make({ maxTokens: 321 }).generate(
        request({
          temperature: 0.3,
          systemPrompt: 'You are the Fastify docs bot.',
          additionalContext: 'The user runs Fastify v5.',
          history: [{ prompt: 'What is Fastify?', response: 'A web framework [1].' }],
        }),
      ),
    );
    const recorded = server.requests[0];
    expect(recorded?.url).toBe('/v1/chat/completions');
    expect(recorded?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const body = bodyOf(recorded);
    expect(body).toMatchObject({ model: 'test-model', temperature: 0.3, stream: true, max_tokens: 321 });
    const messages = body.messages as Messages;
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    const system = messages[0]?.content ?? '';
    expect(system.startsWith('You are the Fastify docs bot.')).toBe(true);
    expect(system).toContain(
      '[1] Plugins — https://fastify.dev/docs/latest/Reference/Plugins/\nUse the `register` API to add one or more plugins.',
    );
    expect(system).toContain(
      '[2] Reply — https://fastify.dev/docs/latest/Reference/Reply/\n`.code(statusCode)`',
    );
    expect(system).toContain('The user runs Fastify v5.');
    expect(system.indexOf('[2] Reply')).toBeLessThan(system.indexOf('The user runs Fastify v5.'));
    expect(messages.slice(1)).toEqual([
      { role: 'user', content: 'What is Fastify?' },
      { role: 'assistant', content: 'A web framework [1].' },
      { role: 'user', content: 'How do I add a plugin?' },
    ]);
  });

  it('sends whole chunks unless contextTokens is set, then the best units and only their sources', async () => {
    server.handler = (_req, res) => {
      startStream(res);
      res.end(deltaEvent('Register it [1], see [2].', 'stop') + 'data: [DONE]\n\n');
    };
    const long: AnswerSource = {
      ...sources[0]!,
      content: `${'Plugins are loaded in order and share nothing by default. '.repeat(12)}\n\nUse the \`register\` API to add one or more plugins.`,
    };
    const given = request({ sources: [long, sources[1]!] });
    await collect(generator.generate(given));
    const whole = (bodyOf(server.requests[0]).messages as Messages)[0]?.content ?? '';
    expect(whole).toContain(long.content.trim());
    expect(whole).toContain('[2] Reply');

    const pieces = await collect(make({ contextTokens: 40 }).generate(given));
    const cut = (bodyOf(server.requests[1]).messages as Messages)[0]?.content ?? '';
    expect(cut).toContain('Use the `register` API to add one or more plugins.');
    expect(cut).not.toContain('share nothing by default. Plugins');
    expect(cut).not.toContain('[2] Reply');
    // A source left out of the context is not citable.
    expect(pieces.join('')).toBe('Register it [1], see.');
  });

  it('sends no Authorization header to a server configured without an API key', async () => {
    server.handler = (_req, res) => {
      startStream(res);
      res.end(deltaEvent('Done.', 'stop') + 'data: [DONE]\n\n');
    };
    await collect(make({ apiKey: undefined }).generate(request()));
    expect(server.requests[0]?.headers).not.toHaveProperty('authorization');
  });

  it('turns an error event in the middle of the stream into LLM_ERROR with its message', async () => {
    server.handler = (_req, res) => {
      startStream(res);
      res.end(deltaEvent('Partial') + 'data: {"error":{"message":"out of memory"}}\n\n');
    };
    const error = await failure(generator.generate(request()));
    expect(error.code).toBe('LLM_ERROR');
    expect(error.message).toContain('failed during the answer: out of memory');
  });

  it('uses the default system prompt when the project has none', async () => {
    server.handler = (_req, res) => {
      startStream(res);
      res.end(deltaEvent('ok', 'stop') + 'data: [DONE]\n\n');
    };
    await collect(generator.generate(request()));
    const body = bodyOf(server.requests[0]);
    expect(body).not.toHaveProperty('temperature');
    const system = (body.messages as Messages)[0]?.content ?? '';
    expect(system.startsWith(DEFAULT_SYSTEM_PROMPT)).toBe(true);
  });

  it('turns a 500 into LLM_ERROR naming the endpoint and the status', async () => {
    server.handler = (_req, res) =>
      jsonReply(res, 500, { error: { message: 'model crashed', type: 'server_error' } });
    const error = await failure(generator.generate(request()));
    expect(error.code).toBe('LLM_ERROR');
    expect(error.message).toContain(`${server.baseUrl}/chat/completions`);
    expect(error.message).toContain('500');
    expect(error.message).toContain('model crashed');
  });

  it('turns a 401 into LLM_ERROR without ever showing the API key', async () => {
    server.handler = (_req, res) =>
      jsonReply(res, 401, {
        error: { message: `Incorrect API key provided: ${API_KEY}.`, code: 'invalid_api_key' },
      });
    const error = await failure(generator.generate(request()));
    expect(error.code).toBe('LLM_ERROR');
    expect(error.message).toContain('401');
    expect(error.message).toContain('API key');
    expect(error.message).not.toContain(API_KEY);
    expect(error.message).not.toContain('0123456789abcdef');
  });

  it('names the message of an error body that has no error field (vLLM) or is not JSON', async () => {
    server.handler = (_req, res) =>
      jsonReply(res, 404, { object: 'error', message: 'The model `test-model` does not exist.' });
    const vllm = await failure(generator.generate(request()));
    expect(vllm.message).toContain('HTTP 404');
    expect(vllm.message).toContain('The model `test-model` does not exist.');
    server.handler = (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad gateway from the proxy</html>');
    };
    const proxy = await failure(generator.generate(request()));
    expect(proxy.code).toBe('LLM_ERROR');
    expect(proxy.message).toContain('Bad gateway from the proxy');
  });

  it('fails with TIMEOUT when the stream stalls', async () => {
    server.handler = (_req, res) => {
      startStream(res);
      res.write(deltaEvent('The answer starts'));
      // …and never goes on, keep-alive comments aside.
      res.write(': keep-alive\n\n');
    };
    const pieces: string[] = [];
    const stalled = make({ idleTimeoutMs: 150 }).generate(request());
    const error = await (async () => {
      try {
        for await (const piece of stalled) pieces.push(piece);
      } catch (e) {
        return e as KbqaError;
      }
      throw new Error('the stream did not fail');
    })();
    expect(pieces.join('')).toBe('The answer starts');
    expect(error).toBeInstanceOf(KbqaError);
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain('sent nothing for 150 ms');
  });

  it('fails with TIMEOUT when the server never answers the request', async () => {
    server.handler = () => undefined;
    const error = await failure(make({ idleTimeoutMs: 150 }).generate(request()));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain(`${server.baseUrl}/chat/completions`);
  });

  it('fails with TIMEOUT when the whole request takes longer than timeoutMs', async () => {
    server.handler = async (_req, res) => {
      startStream(res);
      while (!res.destroyed) {
        res.write(deltaEvent('more '));
        await tick(10);
      }
    };
    const error = await failure(make({ timeoutMs: 200 }).generate(request()));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain('did not finish within 200 ms');
  });

  it('fails with LLM_ERROR when the connection drops mid-stream', async () => {
    server.handler = async (_req, res) => {
      startStream(res);
      res.write(deltaEvent('Partial'));
      await tick(5);
      res.socket?.destroy();
    };
    const error = await failure(generator.generate(request()));
    expect(error.code).toBe('LLM_ERROR');
    expect(error.message).toContain('broke during the answer');
  });

  it('fails with LLM_ERROR when the stream ends without completing', async () => {
    server.handler = (_req, res) => {
      startStream(res);
      res.end(deltaEvent('Partial'));
    };
    const error = await failure(generator.generate(request()));
    expect(error.code).toBe('LLM_ERROR');
    expect(error.message).toContain('before the answer was complete');
  });

  it('takes [DONE] without a finish_reason as a complete answer, even split between pieces', async () => {
    server.handler = async (_req, res) => {
      startStream(res);
      await writeInPieces(res, deltaEvent('Whole.') + 'data: [DONE]\n\n', 3);
      res.end();
    };
    expect((await collect(generator.generate(request()))).join('')).toBe('Whole.');
  });

  it('fails with LLM_ERROR on a malformed stream event', async () => {
    server.handler = (_req, res) => {
      startStream(res);
      res.end('data: {"choices": [\n\n');
    };
    const error = await failure(generator.generate(request()));
    expect(error.code).toBe('LLM_ERROR');
    expect(error.message).toContain('malformed');
  });

  it('fails with LLM_ERROR when the endpoint refuses connections', async () => {
    const gone = await FakeOpenAiServer.start();
    const baseUrl = gone.baseUrl;
    await gone.close();
    const error = await failure(make({ baseUrl }).generate(request()));
    expect(error.code).toBe('LLM_ERROR');
    expect(error.message).toContain('unreachable');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('accepts a server that answers a stream request with one JSON completion', async () => {
    server.handler = (_req, res) =>
      jsonReply(res, 200, {
        choices: [{ index: 0, message: { role: 'assistant', content: 'Whole [1] [5].' } }],
      });
    expect((await collect(generator.generate(request()))).join('')).toBe('Whole [1].');
  });

  it('aborts the HTTP request and throws ABORTED when the signal aborts mid-stream', async () => {
    let interrupted!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (interrupted = resolve));
    server.handler = (_req, res: ServerResponse) => {
      res.on('close', () => {
        if (!res.writableFinished) interrupted();
      });
      startStream(res);
      res.write(deltaEvent('First piece'));
    };
    const controller = new AbortController();
    const iterator = generator.generate(request({ signal: controller.signal }))[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: false, value: 'First piece' });
    const next = iterator.next();
    controller.abort();
    await expect(next).rejects.toMatchObject({ code: 'ABORTED' });
    await serverSawClose;
  });

  it('closes the HTTP request when the consumer stops reading', async () => {
    let interrupted!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (interrupted = resolve));
    server.handler = (_req, res) => {
      res.on('close', () => {
        if (!res.writableFinished) interrupted();
      });
      startStream(res);
      res.write(deltaEvent('First piece'));
    };
    for await (const piece of generator.generate(request())) {
      expect(piece).toBe('First piece');
      break;
    }
    await serverSawClose;
  });

  describe('condenseQuestion', () => {
    const history = [{ prompt: 'How do I use fastify.register?', response: 'Call it with a plugin [1].' }];

    it('sends the history in one non-streamed call and returns the rewritten question', async () => {
      server.handler = (_req, res) =>
        jsonReply(res, 200, {
          choices: [
            {
              message: {
                role: 'assistant',
                content: 'Standalone question: "What options does fastify.register take?"',
              },
            },
          ],
        });
      const condensed = await generator.condenseQuestion(
        'what about its options?',
        history,
        new AbortController().signal,
      );
      expect(condensed).toBe('What options does fastify.register take?');
      const body = bodyOf(server.requests[0]);
      expect(body.stream).toBe(false);
      const prompt = JSON.stringify(body.messages);
      expect(prompt).toContain('How do I use fastify.register?');
      expect(prompt).toContain('Call it with a plugin [1].');
      expect(prompt).toContain('what about its options?');
    });

    it('returns the question without a call when there is no history', async () => {
      const question = 'what about its options?';
      expect(await generator.condenseQuestion(question, [], new AbortController().signal)).toBe(question);
      expect(server.requests).toHaveLength(0);
    });

    it('falls back to the question when the call fails', async () => {
      server.handler = (_req, res) => jsonReply(res, 500, { error: { message: 'down' } });
      const question = 'and in v5?';
      expect(await generator.condenseQuestion(question, history, new AbortController().signal)).toBe(
        question,
      );
    });
  });

  describe('summarize', () => {
    it('asks for a summary within maxChars and returns it', async () => {
      server.handler = (_req, res) =>
        jsonReply(res, 200, {
          choices: [{ message: { role: 'assistant', content: ' Plugins extend Fastify. ' } }],
        });
      const summary = await generator.summarize(
        'Long text about plugins.',
        200,
        new AbortController().signal,
      );
      expect(summary).toBe('Plugins extend Fastify.');
      const body = bodyOf(server.requests[0]);
      expect(body.stream).toBe(false);
      const messages = body.messages as Messages;
      expect(messages[0]?.content).toContain('200 characters');
      expect(messages[1]?.content).toBe('Long text about plugins.');
    });

    it('throws LLM_ERROR when the call fails', async () => {
      server.handler = (_req, res) => jsonReply(res, 429, { error: { message: 'Rate limit reached' } });
      await expect(generator.summarize('text', 100, new AbortController().signal)).rejects.toMatchObject({
        code: 'LLM_ERROR',
        message: expect.stringContaining('429'),
      });
    });
  });

  describe('tools', () => {
    type Events = Parameters<NonNullable<AnswerRequest['onToolEvent']>>[0][];

    const stockTool = (
      calls: unknown[],
      result: AnswerToolResult = { output: '{"left":3}', has_error: false },
    ): AnswerTool => ({
      name: 'stock',
      description: 'Units left of a product',
      parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
      run: (args) => {
        calls.push(args);
        return Promise.resolve(result);
      },
    });

    /** A streamed round that calls `name` with `args`, its arguments split over two fragments. */
    const toolCallStream = (id: string, name: string, args: string): string => {
      const frame = (delta: unknown, finish: string | null = null) =>
        `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      return (
        frame({ role: 'assistant', content: null }) +
        frame({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }] }) +
        frame({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, 4) } }] }) +
        frame({ tool_calls: [{ index: 0, function: { arguments: args.slice(4) } }] }) +
        frame({}, 'tool_calls') +
        'data: [DONE]\n\n'
      );
    };

    it('offers the tools, runs the streamed call, sends its result back and streams the answer', async () => {
      const runs: unknown[] = [];
      server.handler = async (req, res) => {
        startStream(res);
        if (server.requests.length === 1)
          await writeInPieces(res, toolCallStream('call_1', 'stock', '{"sku":"A-1"}'), 9);
        else res.write(deltaEvent('3 units are left [1] [9].', 'stop') + 'data: [DONE]\n\n');
        res.end();
      };
      const events: Events = [];
      const pieces = await collect(
        generator.generate(request({ tools: [stockTool(runs)], onToolEvent: (e) => events.push(e) })),
      );
      expect(pieces.join('')).toBe('3 units are left [1].');
      expect(runs).toEqual([{ sku: 'A-1' }]);
      expect(events).toEqual([
        { type: 'called', callId: 'call_1', name: 'stock' },
        {
          type: 'result',
          callId: 'call_1',
          name: 'stock',
          result: { output: '{"left":3}', has_error: false },
        },
      ]);
      expect(server.requests).toHaveLength(2);
      const first = bodyOf(server.requests[0]);
      expect(first.tools).toEqual([
        {
          type: 'function',
          function: {
            name: 'stock',
            description: 'Units left of a product',
            parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
          },
        },
      ]);
      const second = bodyOf(server.requests[1]);
      const messages = second.messages as Array<Record<string, unknown>>;
      expect(messages.slice(-2)).toEqual([
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'stock', arguments: '{"sku":"A-1"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"left":3}' },
      ]);
      // Tool output reaches the model in the tool message only.
      expect(messages[0]?.content).not.toContain('left');
      expect(messages[0]?.content).toContain('not instructions');
    });

    it('takes the calls of a server that answers JSON (message.tool_calls)', async () => {
      const runs: unknown[] = [];
      server.handler = (_req, res) => {
        if (server.requests.length === 1) {
          jsonReply(res, 200, {
            choices: [
              {
                message: {
                  role: 'assistant',
                  content: null,
                  tool_calls: [
                    { id: 'j1', type: 'function', function: { name: 'stock', arguments: '{"sku":"B"}' } },
                  ],
                },
                finish_reason: 'tool_calls',
              },
            ],
          });
        } else {
          jsonReply(res, 200, { choices: [{ message: { role: 'assistant', content: 'Two left.' } }] });
        }
      };
      const pieces = await collect(generator.generate(request({ tools: [stockTool(runs)] })));
      expect(pieces.join('')).toBe('Two left.');
      expect(runs).toEqual([{ sku: 'B' }]);
      const messages = bodyOf(server.requests[1]).messages as Array<Record<string, unknown>>;
      expect(messages[messages.length - 1]).toEqual({
        role: 'tool',
        tool_call_id: 'j1',
        content: '{"left":3}',
      });
    });

    it('answers a call of a tool not offered, or with broken arguments, with an error and runs nothing', async () => {
      const runs: unknown[] = [];
      server.handler = (_req, res) => {
        if (server.requests.length === 1) {
          jsonReply(res, 200, {
            choices: [
              {
                message: {
                  content: null,
                  tool_calls: [
                    { id: 'a', type: 'function', function: { name: 'delete_everything', arguments: '{}' } },
                    { id: 'b', type: 'function', function: { name: 'stock', arguments: '{"sku":' } },
                  ],
                },
              },
            ],
          });
        } else jsonReply(res, 200, { choices: [{ message: { content: 'Sorry.' } }] });
      };
      const events: Events = [];
      await collect(
        generator.generate(request({ tools: [stockTool(runs)], onToolEvent: (e) => events.push(e) })),
      );
      expect(runs).toEqual([]);
      const results = events.flatMap((e) => (e.type === 'result' ? [e.result] : []));
      expect(results).toEqual([
        { output: '', has_error: true, error: 'no tool named "delete_everything" is offered' },
        { output: '', has_error: true, error: 'the arguments are not valid JSON' },
      ]);
      const messages = bodyOf(server.requests[1]).messages as Array<Record<string, unknown>>;
      expect(messages.slice(-2)).toEqual([
        { role: 'tool', tool_call_id: 'a', content: 'Error: no tool named "delete_everything" is offered' },
        { role: 'tool', tool_call_id: 'b', content: 'Error: the arguments are not valid JSON' },
      ]);
    });

    it('gives the model the error of a failing tool, and still answers', async () => {
      server.handler = (_req, res) => {
        startStream(res);
        if (server.requests.length === 1) res.end(toolCallStream('c', 'stock', '{"sku":"A"}'));
        else res.end(deltaEvent('The stock service is down.', 'stop') + 'data: [DONE]\n\n');
      };
      const failing = stockTool([], {
        output: 'internal failure',
        has_error: true,
        error: 'HTTP 500',
      });
      const pieces = await collect(generator.generate(request({ tools: [failing] })));
      expect(pieces.join('')).toBe('The stock service is down.');
      const messages = bodyOf(server.requests[1]).messages as Array<Record<string, unknown>>;
      expect(messages[messages.length - 1]).toEqual({
        role: 'tool',
        tool_call_id: 'c',
        content: 'Error: HTTP 500\ninternal failure',
      });
    });

    it('stops after maxToolRounds rounds and asks for the answer without tools', async () => {
      const runs: unknown[] = [];
      server.handler = (req, res) => {
        startStream(res);
        const body = req.body as Record<string, unknown>;
        if (body.tools) res.end(toolCallStream(`c${server.requests.length}`, 'stock', '{"sku":"A"}'));
        else res.end(deltaEvent('Final.', 'stop') + 'data: [DONE]\n\n');
      };
      const pieces = await collect(
        make({ maxToolRounds: 2 }).generate(request({ tools: [stockTool(runs)] })),
      );
      expect(pieces.join('')).toBe('Final.');
      expect(runs).toHaveLength(2);
      expect(server.requests.map((r) => bodyOf(r).tools !== undefined)).toEqual([true, true, false]);
      const last = bodyOf(server.requests[2]).messages as Array<Record<string, unknown>>;
      expect(last.filter((m) => m.role === 'tool')).toHaveLength(2);
    });

    it(`runs at most ${MAX_TOOL_CALLS_PER_ROUND} calls of one reply and tells the model the rest were not run`, async () => {
      const runs: unknown[] = [];
      const many = Array.from({ length: MAX_TOOL_CALLS_PER_ROUND + 2 }, (_, i) => ({
        id: `m${i}`,
        type: 'function',
        function: { name: 'stock', arguments: `{"sku":"S${i}"}` },
      }));
      server.handler = (_req, res) => {
        if (server.requests.length === 1)
          jsonReply(res, 200, { choices: [{ message: { tool_calls: many } }] });
        else jsonReply(res, 200, { choices: [{ message: { content: 'Done.' } }] });
      };
      await collect(generator.generate(request({ tools: [stockTool(runs)] })));
      expect(runs).toHaveLength(MAX_TOOL_CALLS_PER_ROUND);
      const tools = (bodyOf(server.requests[1]).messages as Array<Record<string, unknown>>).filter(
        (m) => m.role === 'tool',
      );
      expect(tools).toHaveLength(MAX_TOOL_CALLS_PER_ROUND + 2);
      expect(tools[tools.length - 1]?.content).toBe(
        `Error: not run: at most ${MAX_TOOL_CALLS_PER_ROUND} tool calls per reply`,
      );
    });

    it('sends no tools field without tools, or with maxToolRounds 0', async () => {
      server.handler = (_req, res) => {
        startStream(res);
        res.end(deltaEvent('Plain.', 'stop') + 'data: [DONE]\n\n');
      };
      await collect(generator.generate(request({ tools: [] })));
      const off = make({ maxToolRounds: 0 });
      expect(off.supportsTools).toBe(false);
      await collect(off.generate(request({ tools: [stockTool([])] })));
      expect(server.requests.map((r) => 'tools' in bodyOf(r))).toEqual([false, false]);
    });
  });
});
