import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
export interface RecordedRequest {
    method: string;
    url: string;
    headers: IncomingHttpHeaders;
    body: unknown;
}
export type Handler = (request: RecordedRequest, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;
/** An OpenAI-compatible endpoint on 127.0.0.1 whose behaviour each test scripts. */
export declare class FakeOpenAiServer {
    readonly requests: RecordedRequest[];
    handler: Handler;
    private readonly server;
    get baseUrl(): string;
    static start(): Promise<FakeOpenAiServer>;
    close(): Promise<void>;
}
export declare function deltaEvent(content: string, finishReason?: string | null): string;
export declare function tick(ms?: number): Promise<void>;
/** Writes `text` in pieces of `size` bytes, one TCP write each (Nagle is off), pausing between them. */
export declare function writeInPieces(res: ServerResponse, text: string, size: number): Promise<void>;
export declare function startStream(res: ServerResponse): void;
export declare function jsonReply(res: ServerResponse, status: number, body: unknown): void;
