"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const core_1 = require("@kbqa/core");
const fake_openai_server_1 = require("../test/fake-openai.server");
const openai_answer_generator_1 = require("./openai-answer.generator");
const openai_prompts_1 = require("./openai.prompts");
const API_KEY = 'sk-test-0123456789abcdef';
const sources = [
    {
        n: 1,
        title: 'Plugins',
        link: 'https://fastify.dev/docs/latest/Reference/Plugins/',
        content: 'Use the `register` API to add one or more plugins.',
        score: 0.9,
    },
    {
        n: 2,
        title: 'Reply',
        link: 'https://fastify.dev/docs/latest/Reference/Reply/',
        content: '`.code(statusCode)` - Sets the status code.',
        score: 0.7,
    },
];
function request(overrides = {}) {
    return {
        question: 'How do I add a plugin?',
        sources,
        history: [],
        signal: new AbortController().signal,
        ...overrides,
    };
}
async function collect(iterable) {
    const pieces = [];
    for await (const piece of iterable)
        pieces.push(piece);
    return pieces;
}
async function failure(iterable) {
    try {
        await collect(iterable);
    }
    catch (error) {
        if (error instanceof core_1.KbqaError)
            return error;
        throw error;
    }
    throw new Error('the stream did not fail');
}
function bodyOf(recorded) {
    return recorded?.body;
}
describe(openai_answer_generator_1.OpenAiAnswerGenerator.name, () => {
    let server;
    let generator;
    const make = (options = {}) => new openai_answer_generator_1.OpenAiAnswerGenerator({
        baseUrl: server.baseUrl,
        model: 'test-model',
        apiKey: API_KEY,
        timeoutMs: 5_000,
        idleTimeoutMs: 2_000,
        ...options,
    });
    beforeEach(async () => {
        server = await fake_openai_server_1.FakeOpenAiServer.start();
        generator = make();
    });
    afterEach(async () => {
        await server.close();
    });
    it('streams the deltas of a stream written in small split pieces and drops unknown citations', async () => {
        server.handler = async (_req, res) => {
            (0, fake_openai_server_1.startStream)(res);
            const stream = ': keep-alive\n\n' +
                (0, fake_openai_server_1.deltaEvent)('').replace(/\n/g, '\r\n') +
                (0, fake_openai_server_1.deltaEvent)('Use `fastify.register` [') +
                (0, fake_openai_server_1.deltaEvent)('1]. Plugins are ') +
                (0, fake_openai_server_1.deltaEvent)('encapsulated [7') +
                (0, fake_openai_server_1.deltaEvent)('] and cited [2].') +
                (0, fake_openai_server_1.deltaEvent)('', 'stop') +
                'data: [DONE]\n\n';
            await (0, fake_openai_server_1.writeInPieces)(res, stream, 7);
            res.end();
        };
        const pieces = await collect(generator.generate(request()));
        expect(pieces.length).toBeGreaterThan(2);
        expect(pieces.join('')).toBe('Use `fastify.register` [1]. Plugins are encapsulated and cited [2].');
    });
    it('sends the model, temperature, stream flag, numbered sources, context, system prompt and history', async () => {
        server.handler = (_req, res) => {
            (0, fake_openai_server_1.startStream)(res);
            res.end((0, fake_openai_server_1.deltaEvent)('Done [1].', 'stop') + 'data: [DONE]\n\n');
        };
        await collect(make({ maxTokens: 321 }).generate(request({
            temperature: 0.3,
            systemPrompt: 'You are the Fastify docs bot.',
            additionalContext: 'The user runs Fastify v5.',
            history: [{ prompt: 'What is Fastify?', response: 'A web framework [1].' }],
        })));
        const recorded = server.requests[0];
        expect(recorded?.url).toBe('/v1/chat/completions');
        expect(recorded?.headers.authorization).toBe(`Bearer ${API_KEY}`);
        const body = bodyOf(recorded);
        expect(body).toMatchObject({ model: 'test-model', temperature: 0.3, stream: true, max_tokens: 321 });
        const messages = body.messages;
        expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
        const system = messages[0]?.content ?? '';
        expect(system.startsWith('You are the Fastify docs bot.')).toBe(true);
        expect(system).toContain('[1] Plugins — https://fastify.dev/docs/latest/Reference/Plugins/\nUse the `register` API to add one or more plugins.');
        expect(system).toContain('[2] Reply — https://fastify.dev/docs/latest/Reference/Reply/\n`.code(statusCode)`');
        expect(system).toContain('The user runs Fastify v5.');
        expect(system.indexOf('[2] Reply')).toBeLessThan(system.indexOf('The user runs Fastify v5.'));
        expect(messages.slice(1)).toEqual([
            { role: 'user', content: 'What is Fastify?' },
            { role: 'assistant', content: 'A web framework [1].' },
            { role: 'user', content: 'How do I add a plugin?' },
        ]);
    });
    it('uses the default system prompt when the project has none', async () => {
        server.handler = (_req, res) => {
            (0, fake_openai_server_1.startStream)(res);
            res.end((0, fake_openai_server_1.deltaEvent)('ok', 'stop') + 'data: [DONE]\n\n');
        };
        await collect(generator.generate(request()));
        const body = bodyOf(server.requests[0]);
        expect(body).not.toHaveProperty('temperature');
        const system = body.messages[0]?.content ?? '';
        expect(system.startsWith(openai_prompts_1.DEFAULT_SYSTEM_PROMPT)).toBe(true);
    });
    it('turns a 500 into LLM_ERROR naming the endpoint and the status', async () => {
        server.handler = (_req, res) => (0, fake_openai_server_1.jsonReply)(res, 500, { error: { message: 'model crashed', type: 'server_error' } });
        const error = await failure(generator.generate(request()));
        expect(error.code).toBe('LLM_ERROR');
        expect(error.message).toContain(`${server.baseUrl}/chat/completions`);
        expect(error.message).toContain('500');
        expect(error.message).toContain('model crashed');
    });
    it('turns a 401 into LLM_ERROR without ever showing the API key', async () => {
        server.handler = (_req, res) => (0, fake_openai_server_1.jsonReply)(res, 401, {
            error: { message: `Incorrect API key provided: ${API_KEY}.`, code: 'invalid_api_key' },
        });
        const error = await failure(generator.generate(request()));
        expect(error.code).toBe('LLM_ERROR');
        expect(error.message).toContain('401');
        expect(error.message).toContain('API key');
        expect(error.message).not.toContain(API_KEY);
        expect(error.message).not.toContain('0123456789abcdef');
    });
    it('fails with TIMEOUT when the stream stalls', async () => {
        server.handler = (_req, res) => {
            (0, fake_openai_server_1.startStream)(res);
            res.write((0, fake_openai_server_1.deltaEvent)('The answer starts'));
            // …and never goes on, keep-alive comments aside.
            res.write(': keep-alive\n\n');
        };
        const pieces = [];
        const stalled = make({ idleTimeoutMs: 150 }).generate(request());
        const error = await (async () => {
            try {
                for await (const piece of stalled)
                    pieces.push(piece);
            }
            catch (e) {
                return e;
            }
            throw new Error('the stream did not fail');
        })();
        expect(pieces.join('')).toBe('The answer starts');
        expect(error).toBeInstanceOf(core_1.KbqaError);
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
            (0, fake_openai_server_1.startStream)(res);
            while (!res.destroyed) {
                res.write((0, fake_openai_server_1.deltaEvent)('more '));
                await (0, fake_openai_server_1.tick)(10);
            }
        };
        const error = await failure(make({ timeoutMs: 200 }).generate(request()));
        expect(error.code).toBe('TIMEOUT');
        expect(error.message).toContain('did not finish within 200 ms');
    });
    it('fails with LLM_ERROR when the connection drops mid-stream', async () => {
        server.handler = async (_req, res) => {
            (0, fake_openai_server_1.startStream)(res);
            res.write((0, fake_openai_server_1.deltaEvent)('Partial'));
            await (0, fake_openai_server_1.tick)(5);
            res.socket?.destroy();
        };
        const error = await failure(generator.generate(request()));
        expect(error.code).toBe('LLM_ERROR');
        expect(error.message).toContain('broke during the answer');
    });
    it('fails with LLM_ERROR when the stream ends without completing', async () => {
        server.handler = (_req, res) => {
            (0, fake_openai_server_1.startStream)(res);
            res.end((0, fake_openai_server_1.deltaEvent)('Partial'));
        };
        const error = await failure(generator.generate(request()));
        expect(error.code).toBe('LLM_ERROR');
        expect(error.message).toContain('before the answer was complete');
    });
    it('fails with LLM_ERROR on a malformed stream event', async () => {
        server.handler = (_req, res) => {
            (0, fake_openai_server_1.startStream)(res);
            res.end('data: {"choices": [\n\n');
        };
        const error = await failure(generator.generate(request()));
        expect(error.code).toBe('LLM_ERROR');
        expect(error.message).toContain('malformed');
    });
    it('fails with LLM_ERROR when the endpoint refuses connections', async () => {
        const gone = await fake_openai_server_1.FakeOpenAiServer.start();
        const baseUrl = gone.baseUrl;
        await gone.close();
        const error = await failure(make({ baseUrl }).generate(request()));
        expect(error.code).toBe('LLM_ERROR');
        expect(error.message).toContain('unreachable');
        expect(error.message).toContain('ECONNREFUSED');
    });
    it('accepts a server that answers a stream request with one JSON completion', async () => {
        server.handler = (_req, res) => (0, fake_openai_server_1.jsonReply)(res, 200, {
            choices: [{ index: 0, message: { role: 'assistant', content: 'Whole [1] [5].' } }],
        });
        expect((await collect(generator.generate(request()))).join('')).toBe('Whole [1].');
    });
    it('aborts the HTTP request and throws ABORTED when the signal aborts mid-stream', async () => {
        let interrupted;
        const serverSawClose = new Promise((resolve) => (interrupted = resolve));
        server.handler = (_req, res) => {
            res.on('close', () => {
                if (!res.writableFinished)
                    interrupted();
            });
            (0, fake_openai_server_1.startStream)(res);
            res.write((0, fake_openai_server_1.deltaEvent)('First piece'));
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
        let interrupted;
        const serverSawClose = new Promise((resolve) => (interrupted = resolve));
        server.handler = (_req, res) => {
            res.on('close', () => {
                if (!res.writableFinished)
                    interrupted();
            });
            (0, fake_openai_server_1.startStream)(res);
            res.write((0, fake_openai_server_1.deltaEvent)('First piece'));
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
            server.handler = (_req, res) => (0, fake_openai_server_1.jsonReply)(res, 200, {
                choices: [
                    {
                        message: {
                            role: 'assistant',
                            content: 'Standalone question: "What options does fastify.register take?"',
                        },
                    },
                ],
            });
            const condensed = await generator.condenseQuestion('what about its options?', history, new AbortController().signal);
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
            server.handler = (_req, res) => (0, fake_openai_server_1.jsonReply)(res, 500, { error: { message: 'down' } });
            const question = 'and in v5?';
            expect(await generator.condenseQuestion(question, history, new AbortController().signal)).toBe(question);
        });
    });
    describe('summarize', () => {
        it('asks for a summary within maxChars and returns it', async () => {
            server.handler = (_req, res) => (0, fake_openai_server_1.jsonReply)(res, 200, {
                choices: [{ message: { role: 'assistant', content: ' Plugins extend Fastify. ' } }],
            });
            const summary = await generator.summarize('Long text about plugins.', 200, new AbortController().signal);
            expect(summary).toBe('Plugins extend Fastify.');
            const body = bodyOf(server.requests[0]);
            expect(body.stream).toBe(false);
            const messages = body.messages;
            expect(messages[0]?.content).toContain('200 characters');
            expect(messages[1]?.content).toBe('Long text about plugins.');
        });
        it('throws LLM_ERROR when the call fails', async () => {
            server.handler = (_req, res) => (0, fake_openai_server_1.jsonReply)(res, 429, { error: { message: 'Rate limit reached' } });
            await expect(generator.summarize('text', 100, new AbortController().signal)).rejects.toMatchObject({
                code: 'LLM_ERROR',
                message: expect.stringContaining('429'),
            });
        });
    });
});
//# sourceMappingURL=openai-answer.generator.spec.js.map