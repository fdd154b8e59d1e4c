import type { IncomingMessage, ServerResponse } from 'node:http';
import { startServer, type TestServer } from '@kbqa/core/testing';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** The header value the `explode` tool leaks in its error text: callers check it is redacted. */
export const MCP_SECRET = 'Bearer mcp-secret-9c4e2a7b1d';

/** An MCP server of the SDK, stateless (a server and transport per request), recording the auth header. */
export async function startMcpServer(authSeen: Array<string | undefined>): Promise<TestServer> {
  const build = () => {
    const server = new McpServer({ name: 'test-tools', version: '1.0.0' });
    server.registerTool(
      'shout',
      { description: 'Upper-cases a text', inputSchema: { text: z.string() } },
      ({ text }) => ({
        content: [
          { type: 'text', text: text.toUpperCase() },
          { type: 'text', text: 'done' },
        ],
      }),
    );
    server.registerTool('lookup', { description: 'Clashes with an HTTP tool of the same name' }, () => ({
      content: [{ type: 'text', text: 'from mcp' }],
    }));
    server.registerTool('explode', { description: 'Always fails' }, () => ({
      content: [{ type: 'text', text: `boom (${MCP_SECRET})` }],
      isError: true,
    }));
    return server;
  };
  return startServer((req: IncomingMessage, res: ServerResponse) => {
    authSeen.push(req.headers.authorization);
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const server = build();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      void server
        .connect(transport)
        .then(() => transport.handleRequest(req, res, raw ? (JSON.parse(raw) as unknown) : undefined));
    });
  });
}
