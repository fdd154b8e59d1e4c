"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.FakeOpenAiServer = void 0;
exports.deltaEvent = deltaEvent;
exports.tick = tick;
exports.writeInPieces = writeInPieces;
exports.startStream = startStream;
exports.jsonReply = jsonReply;
const node_http_1 = require("node:http");
/** An OpenAI-compatible endpoint on 127.0.0.1 whose behaviour each test scripts. */
class FakeOpenAiServer {
    requests = [];
    handler = (_request, res) => {
        res.writeHead(500).end();
    };
    server = (0, node_http_1.createServer)((raw, res) => {
        const chunks = [];
        raw.on('data', (chunk) => chunks.push(chunk));
        raw.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body = text;
            try {
                body = JSON.parse(text);
            }
            catch {
                // keep the raw text
            }
            const request = { method: raw.method ?? '', url: raw.url ?? '', headers: raw.headers, body };
            this.requests.push(request);
            res.socket?.setNoDelay(true);
            void Promise.resolve(this.handler(request, res, raw)).catch(() => res.destroy());
        });
    });
    get baseUrl() {
        const { port } = this.server.address();
        return `http://127.0.0.1:${port}/v1`;
    }
    static async start() {
        const fake = new FakeOpenAiServer();
        await new Promise((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
        return fake;
    }
    async close() {
        this.server.closeAllConnections();
        await new Promise((resolve) => this.server.close(() => resolve()));
    }
}
exports.FakeOpenAiServer = FakeOpenAiServer;
function deltaEvent(content, finishReason = null) {
    const choice = { index: 0, delta: content ? { content } : {}, finish_reason: finishReason };
    return `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [choice] })}\n\n`;
}
function tick(ms = 1) {
    return new Promise((resolve) => setTimeout(resolve, ms));
}
/** Writes `text` in pieces of `size` bytes, one TCP write each (Nagle is off), pausing between them. */
async function writeInPieces(res, text, size) {
    const bytes = Buffer.from(text, 'utf8');
    for (let i = 0; i < bytes.length && !res.destroyed; i += size) {
        res.write(bytes.subarray(i, i + size));
        await tick();
    }
}
function startStream(res) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
}
function jsonReply(res, status, body) {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
//# sourceMappingURL=fake-openai.server.js.map