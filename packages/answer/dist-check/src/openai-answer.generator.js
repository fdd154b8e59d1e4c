"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.OpenAiAnswerGenerator = void 0;
const core_1 = require("@kbqa/core");
const abort_util_1 = require("./abort.util");
const citation_filter_transform_1 = require("./citation-filter.transform");
const openai_prompts_1 = require("./openai.prompts");
const sse_parser_1 = require("./sse.parser");
const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
/**
 * Answers through any OpenAI-compatible chat completions endpoint (OpenAI, Ollama, vLLM,
 * llama.cpp server), streaming. The answer may cite only the sources it was given: other
 * markers are removed on the fly ({@link filterCitations}).
 *
 * Failures are thrown from the iterator as KbqaError: `LLM_ERROR` for HTTP errors, refused or
 * broken connections and malformed streams; `TIMEOUT` when `timeoutMs` or `idleTimeoutMs`
 * passes. When `signal` aborts, the HTTP request is aborted and the iterator throws
 * KbqaError('ABORTED') right away; the pieces already yielded are the partial answer.
 */
class OpenAiAnswerGenerator {
    options;
    id;
    url;
    /** The URL as shown in messages: without credentials, query or fragment. */
    endpoint;
    timeoutMs;
    idleTimeoutMs;
    fetchImpl;
    constructor(options) {
        this.options = options;
        let parsed;
        try {
            parsed = new URL(`${options.baseUrl.replace(/\/+$/, '')}/chat/completions`);
        }
        catch {
            throw new core_1.KbqaError('BAD_REQUEST', 'The LLM base URL is not a valid URL');
        }
        if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
            throw new core_1.KbqaError('BAD_REQUEST', 'The LLM base URL must be http or https');
        }
        if (!options.model.trim())
            throw new core_1.KbqaError('BAD_REQUEST', 'The LLM model name is empty');
        this.url = parsed.href;
        this.endpoint = `${parsed.origin}${parsed.pathname}`;
        this.id = `openai:${options.model}`;
        this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
        this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
        this.fetchImpl = options.fetch ?? globalThis.fetch;
    }
    generate(request) {
        const messages = (0, openai_prompts_1.buildAnswerMessages)(request, this.options.maxHistoryTurns);
        const raw = this.stream(messages, { temperature: request.temperature, maxTokens: this.options.maxTokens }, request.signal);
        return (0, citation_filter_transform_1.filterCitations)(raw, request.sources.map((s) => s.n));
    }
    /**
     * One non-streamed call rewriting a follow-up into a standalone question. Never throws: with
     * no history, or when the call fails or is aborted, the question comes back unchanged.
     */
    async condenseQuestion(question, history, signal) {
        if (history.length === 0 || signal.aborted)
            return question;
        try {
            const reply = await this.complete((0, openai_prompts_1.buildCondenseMessages)(question, history), { temperature: 0, maxTokens: 200 }, signal);
            return (0, openai_prompts_1.parseCondensed)(reply, question);
        }
        catch {
            return question;
        }
    }
    /** One non-streamed call; throws KbqaError like {@link generate}. The model may exceed `maxChars` a little. */
    async summarize(text, maxChars, signal) {
        (0, abort_util_1.throwIfAborted)(signal);
        const input = text.slice(0, this.options.maxSummarizeInputChars ?? 24_000);
        const reply = await this.complete((0, openai_prompts_1.buildSummarizeMessages)(input, maxChars), { temperature: 0.2, maxTokens: Math.max(64, Math.ceil(maxChars / 2)) }, signal);
        return reply.trim();
    }
    async *stream(messages, options, signal) {
        (0, abort_util_1.throwIfAborted)(signal);
        const call = new Call(this.endpoint, signal, this.timeoutMs, this.idleTimeoutMs);
        let reader;
        let completed = false;
        try {
            const response = await call.run(() => this.post(messages, options, true, call.signal));
            if (!response.ok)
                throw await this.httpError(response, call);
            const contentType = response.headers.get('content-type') ?? '';
            if (contentType.includes('application/json')) {
                // The server ignored `stream: true`: take the whole answer at once.
                const content = messageContent(await call.run(() => response.json()), this.endpoint);
                completed = true;
                if (content)
                    yield content;
                return;
            }
            if (!response.body)
                throw new core_1.KbqaError('LLM_ERROR', `LLM endpoint ${this.endpoint} sent an empty response`);
            const streamReader = response.body.getReader();
            reader = streamReader;
            call.phase = 'stream';
            call.onAbort(() => void streamReader.cancel().catch(() => undefined));
            const parser = new sse_parser_1.SseParser();
            const decoder = new TextDecoder();
            let finished = false;
            for (;;) {
                const { value, done } = await call.run(() => streamReader.read());
                const events = done
                    ? [...parser.push(decoder.decode()), ...parser.end()]
                    : parser.push(decoder.decode(value, { stream: true }));
                for (const data of events) {
                    call.touch();
                    if (data.trim() === '[DONE]') {
                        completed = true;
                        return;
                    }
                    const chunk = parseStreamEvent(data, this.endpoint);
                    if (chunk.finished)
                        finished = true;
                    if (chunk.content) {
                        // A slow consumer is not a stalled server: no idle limit while the piece is out.
                        call.pauseIdle();
                        yield chunk.content;
                        call.touch();
                    }
                }
                if (done)
                    break;
            }
            // Some servers end without [DONE]; a finish_reason still marks a complete answer.
            if (!finished) {
                throw new core_1.KbqaError('LLM_ERROR', `LLM endpoint ${this.endpoint} ended the stream before the answer was complete`);
            }
            completed = true;
        }
        catch (error) {
            throw call.translate(error);
        }
        finally {
            call.dispose();
            // Stopped early (error, abort or a consumer that stopped reading): free the connection.
            if (!completed) {
                call.abort('done');
                if (reader)
                    await reader.cancel().catch(() => undefined);
            }
        }
    }
    async complete(messages, options, signal) {
        const call = new Call(this.endpoint, signal, this.timeoutMs, this.timeoutMs);
        try {
            const response = await call.run(() => this.post(messages, options, false, call.signal));
            if (!response.ok)
                throw await this.httpError(response, call);
            call.phase = 'stream';
            const body = await call.run(() => response.json());
            return messageContent(body, this.endpoint);
        }
        catch (error) {
            throw call.translate(error);
        }
        finally {
            call.dispose();
            call.abort('done');
        }
    }
    post(messages, options, stream, signal) {
        const headers = {
            'content-type': 'application/json',
            accept: stream ? 'text/event-stream' : 'application/json',
        };
        if (this.options.apiKey)
            headers.authorization = `Bearer ${this.options.apiKey}`;
        const body = { model: this.options.model, messages, stream };
        if (options.temperature !== undefined)
            body.temperature = options.temperature;
        if (options.maxTokens !== undefined)
            body.max_tokens = options.maxTokens;
        return this.fetchImpl(this.url, { method: 'POST', headers, body: JSON.stringify(body), signal });
    }
    async httpError(response, call) {
        let detail = '';
        try {
            detail = errorDetail(await call.run(() => response.text()));
        }
        catch (error) {
            if (call.signal.aborted)
                return call.translate(error);
        }
        const hint = response.status === 401 || response.status === 403
            ? ' (check the API key)'
            : response.status === 404
                ? ' (check the base URL and the model name)'
                : '';
        const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
        const message = `LLM endpoint ${this.endpoint} answered ${status}${hint}${detail ? `: ${detail}` : ''}`;
        return new core_1.KbqaError('LLM_ERROR', this.redact(message));
    }
    /** Keeps the API key (or any key-looking token a server echoes back) out of messages. */
    redact(message) {
        let out = message;
        const key = this.options.apiKey;
        if (key)
            out = out.split(key).join('[redacted]');
        return out.replace(/\bsk-[A-Za-z0-9*_.-]{6,}/g, '[redacted]');
    }
}
exports.OpenAiAnswerGenerator = OpenAiAnswerGenerator;
/**
 * One HTTP exchange with its limits: an AbortController fed by the caller's signal, the
 * whole-request timer and the idle timer, and the translation of what went wrong into KbqaError.
 */
class Call {
    endpoint;
    callerSignal;
    timeoutMs;
    idleTimeoutMs;
    signal;
    phase = 'connect';
    controller = new AbortController();
    reason;
    totalTimer;
    idleTimer;
    aborted;
    onCallerAbort = () => this.abort('caller');
    constructor(endpoint, callerSignal, timeoutMs, idleTimeoutMs) {
        this.endpoint = endpoint;
        this.callerSignal = callerSignal;
        this.timeoutMs = timeoutMs;
        this.idleTimeoutMs = idleTimeoutMs;
        this.signal = this.controller.signal;
        this.aborted = new Promise((_resolve, reject) => {
            this.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        });
        // Nobody may be awaiting `aborted` when it rejects.
        this.aborted.catch(() => undefined);
        callerSignal.addEventListener('abort', this.onCallerAbort, { once: true });
        this.totalTimer = setTimeout(() => this.abort('timeout'), timeoutMs);
        this.touch();
        if (callerSignal.aborted)
            this.abort('caller');
    }
    /** Runs a step of the exchange; it loses the race against an abort even if it ignores the signal. */
    run(step) {
        if (this.signal.aborted)
            return this.aborted;
        const promise = step();
        promise.catch(() => undefined);
        return Promise.race([promise, this.aborted]);
    }
    onAbort(listener) {
        if (this.signal.aborted)
            listener();
        else
            this.signal.addEventListener('abort', listener, { once: true });
    }
    /** Progress: the idle limit starts again. */
    touch() {
        this.pauseIdle();
        this.idleTimer = setTimeout(() => this.abort('idle'), this.idleTimeoutMs);
    }
    pauseIdle() {
        if (this.idleTimer)
            clearTimeout(this.idleTimer);
        this.idleTimer = undefined;
    }
    abort(reason) {
        if (this.signal.aborted)
            return;
        this.reason = reason;
        this.controller.abort();
    }
    dispose() {
        clearTimeout(this.totalTimer);
        this.pauseIdle();
        this.callerSignal.removeEventListener('abort', this.onCallerAbort);
    }
    translate(error) {
        switch (this.reason) {
            case 'caller':
                return (0, abort_util_1.abortedError)();
            case 'timeout':
                return new core_1.KbqaError('TIMEOUT', `LLM endpoint ${this.endpoint} did not finish within ${this.timeoutMs} ms`, {
                    cause: error,
                });
            case 'idle':
                return new core_1.KbqaError('TIMEOUT', `LLM endpoint ${this.endpoint} sent nothing for ${this.idleTimeoutMs} ms${this.phase === 'stream' ? ' in the middle of the answer' : ''}`, { cause: error });
            case 'done':
            case undefined:
                break;
        }
        if (error instanceof core_1.KbqaError)
            return error;
        const cause = networkCause(error);
        const message = this.phase === 'connect'
            ? `LLM endpoint ${this.endpoint} is unreachable${cause ? `: ${cause}` : ''}`
            : `The connection to LLM endpoint ${this.endpoint} broke during the answer${cause ? `: ${cause}` : ''}`;
        return new core_1.KbqaError('LLM_ERROR', message, { cause: error });
    }
}
/** "ECONNREFUSED", "terminated", "other side closed": the useful part of undici's errors. */
function networkCause(error) {
    // Duck-typed: errors from Node's own fetch need not be instances of this realm's Error.
    if (!isErrorLike(error))
        return '';
    const cause = error.cause;
    if (isErrorLike(cause)) {
        const code = cause.code;
        return typeof code === 'string' ? `${code} (${cause.message})` : cause.message;
    }
    return error.message;
}
function isErrorLike(value) {
    return (typeof value === 'object' &&
        value !== null &&
        typeof value.message === 'string');
}
function parseStreamEvent(data, endpoint) {
    let value;
    try {
        value = JSON.parse(data);
    }
    catch {
        throw new core_1.KbqaError('LLM_ERROR', `LLM endpoint ${endpoint} sent a malformed stream event: ${clip(data, 120)}`);
    }
    if (!isRecord(value))
        throw new core_1.KbqaError('LLM_ERROR', `LLM endpoint ${endpoint} sent a malformed stream event`);
    if (value.error !== undefined) {
        throw new core_1.KbqaError('LLM_ERROR', `LLM endpoint ${endpoint} failed during the answer: ${errorDetail(value)}`);
    }
    const choice = Array.isArray(value.choices) ? value.choices[0] : undefined;
    if (!isRecord(choice))
        return { content: '', finished: false };
    const delta = isRecord(choice.delta) ? choice.delta : isRecord(choice.message) ? choice.message : {};
    const content = typeof delta.content === 'string' ? delta.content : typeof choice.text === 'string' ? choice.text : '';
    const finished = typeof choice.finish_reason === 'string' && choice.finish_reason !== '';
    return { content, finished };
}
function messageContent(body, endpoint) {
    const choice = isRecord(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
    const message = isRecord(choice) ? choice.message : undefined;
    if (isRecord(message) && typeof message.content === 'string')
        return message.content;
    if (isRecord(message) && message.content === null)
        return '';
    throw new core_1.KbqaError('LLM_ERROR', `LLM endpoint ${endpoint} sent a response without a message`);
}
/** The message of an OpenAI-style error body (`{"error":{"message":…}}`), else the text itself. */
function errorDetail(body) {
    let value = body;
    if (typeof body === 'string') {
        try {
            value = JSON.parse(body);
        }
        catch {
            return clip(body.replace(/\s+/g, ' ').trim(), 300);
        }
    }
    if (isRecord(value)) {
        const error = value.error;
        if (isRecord(error) && typeof error.message === 'string')
            return clip(error.message, 300);
        if (typeof error === 'string')
            return clip(error, 300);
        if (typeof value.message === 'string')
            return clip(value.message, 300);
        if (typeof value.detail === 'string')
            return clip(value.detail, 300);
    }
    return clip(typeof body === 'string' ? body : JSON.stringify(body), 300);
}
function isRecord(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function clip(text, max) {
    return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
//# sourceMappingURL=openai-answer.generator.js.map