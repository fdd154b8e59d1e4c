import { type AnswerGenerator, type AnswerRequest, type HistoryTurn } from '@kbqa/core';
export interface OpenAiAnswerGeneratorOptions {
    /** Base URL of the OpenAI-compatible API, up to the version: `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`. */
    baseUrl: string;
    model: string;
    /** Sent as `Authorization: Bearer …`; never appears in an error message. */
    apiKey?: string;
    /** Limit for a whole request, streaming included (default 120 s). */
    timeoutMs?: number;
    /**
     * Longest wait for the next stream event, the first one included (default 30 s). Keep-alive
     * comments do not count: a server that only sends those is stalled.
     */
    idleTimeoutMs?: number;
    /** `max_tokens` of answers; the server's default when absent. */
    maxTokens?: number;
    /** Earlier turns sent with a question (default 10). */
    maxHistoryTurns?: number;
    /** Longest text sent to the model for a summary (default 24 000 characters); the rest is left out. */
    maxSummarizeInputChars?: number;
    /** Injectable for tests; Node's global fetch otherwise. */
    fetch?: typeof fetch;
}
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
export declare class OpenAiAnswerGenerator implements AnswerGenerator {
    private readonly options;
    readonly id: string;
    private readonly url;
    /** The URL as shown in messages: without credentials, query or fragment. */
    private readonly endpoint;
    private readonly timeoutMs;
    private readonly idleTimeoutMs;
    private readonly fetchImpl;
    constructor(options: OpenAiAnswerGeneratorOptions);
    generate(request: AnswerRequest): AsyncIterable<string>;
    /**
     * One non-streamed call rewriting a follow-up into a standalone question. Never throws: with
     * no history, or when the call fails or is aborted, the question comes back unchanged.
     */
    condenseQuestion(question: string, history: HistoryTurn[], signal: AbortSignal): Promise<string>;
    /** One non-streamed call; throws KbqaError like {@link generate}. The model may exceed `maxChars` a little. */
    summarize(text: string, maxChars: number, signal: AbortSignal): Promise<string>;
    private stream;
    private complete;
    private post;
    private httpError;
    /** Keeps the API key (or any key-looking token a server echoes back) out of messages. */
    private redact;
}
