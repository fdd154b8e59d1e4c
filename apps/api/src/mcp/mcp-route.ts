import { Inject, Injectable, Logger } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ErrorCode } from '@kbqa/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RateLimits } from '../common/rate-limit';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { type AuthenticatedKey, ProjectsService } from '../projects/projects.service';
import { crossOrigin } from '../widget/widget-cors';
import { createMcpServer } from './mcp-server';
import { McpKnowledgeService } from './mcp.service';
import { SourceTexts } from './source-texts';

export const MCP_PATH = '/mcp';

/** `Authorization: Bearer <key>`; undefined when absent or another scheme. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return m?.[1];
}

/**
 * The MCP endpoint (Streamable HTTP) in stateless mode: every POST gets its own server and
 * transport scoped to the key's project, so nothing lives between requests and any API process
 * behind a load balancer can answer any request. Without sessions there is no stream for the
 * server to push on, so GET and DELETE are refused (405), as the SDK's stateless examples do.
 */
@Injectable()
export class McpEndpoint {
  private readonly logger = new Logger('Mcp');

  constructor(
    private readonly projects: ProjectsService,
    private readonly limits: RateLimits,
    private readonly knowledge: McpKnowledgeService,
    private readonly sources: SourceTexts,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async handle(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    // MCP clients are programs, not pages: no CORS is offered, and a cross-origin browser
    // request (DNS rebinding, a page posting text/plain) is refused before the key is looked at.
    const origin = crossOrigin(req.headers);
    if (origin !== undefined) {
      return sendError(reply, 403, 'ORIGIN_NOT_ALLOWED', `origin ${origin} may not call ${MCP_PATH}`);
    }
    const auth = await this.authenticate(req, reply);
    if (!auth) return;

    // From here the SDK writes the response to the socket itself.
    void reply.hijack();
    const res = reply.raw;
    const server = createMcpServer(
      { auth, address: req.ip },
      { knowledge: this.knowledge, sources: this.sources, version: this.config.version, logger: this.logger },
    );
    // JSON answers rather than an SSE stream: nothing is pushed while a tool runs, and plain
    // JSON goes through every proxy unbuffered.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    // Closing the server also aborts a running tool (its signal) when the client goes away.
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req.raw, res, req.body);
    } catch (e) {
      this.logger.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
      if (!res.headersSent) {
        res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(jsonRpcError(-32603, 'Internal server error')));
      } else res.end();
    }
  }

  /**
   * The key check of ApiKeyGuard with the key read from the Authorization header: a presented
   * key that is not known counts against the client address in `authFail`, and an address that
   * spent it is refused before its key is looked at. The refusal is a 401 with a Bearer challenge
   * (what HTTP clients, the MCP SDK's among them, expect), in the API's one error shape.
   */
  private async authenticate(
    req: FastifyRequest,
    reply: FastifyReply,
  ): Promise<AuthenticatedKey | undefined> {
    const address = req.ip;
    const wait = await this.limits.blocked('authFail', address);
    if (wait !== undefined) return tooManyFailures(reply, wait);
    const presented = bearerToken(req.headers.authorization);
    if (presented === undefined) {
      void reply.header('WWW-Authenticate', 'Bearer realm="kbqa"');
      sendError(reply, 401, 'UNAUTHORIZED', 'Authorization: Bearer <project API key> is required');
      return undefined;
    }
    const auth = await this.projects.authenticate(presented);
    if (!auth) {
      // A burst passes the check above all at once; the count this failure returns is what caps it.
      const spent = await this.limits.consume('authFail', address);
      if (spent !== undefined) return tooManyFailures(reply, spent);
      void reply.header('WWW-Authenticate', 'Bearer realm="kbqa", error="invalid_token"');
      sendError(reply, 401, 'UNAUTHORIZED', 'Invalid API key or project not found');
      return undefined;
    }
    return auth;
  }
}

function tooManyFailures(reply: FastifyReply, wait: number): undefined {
  void reply.header('Retry-After', String(wait));
  sendError(
    reply,
    429,
    'RATE_LIMITED',
    `too many failed key checks from this address; retry after ${wait} s`,
  );
  return undefined;
}

function sendError(reply: FastifyReply, status: number, code: ErrorCode, error: string): void {
  void reply.code(status).type('application/json; charset=utf-8').send({ error, code });
}

function jsonRpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

/** `/mcp`: POST for the protocol; GET and DELETE answered 405 (no sessions, see McpEndpoint). */
export function registerMcpRoutes(instance: FastifyInstance, endpoint: McpEndpoint): void {
  instance.post(MCP_PATH, (req, reply) => endpoint.handle(req, reply));
  for (const method of ['GET', 'DELETE'] as const) {
    instance.route({
      method,
      url: MCP_PATH,
      handler: (_req, reply) => {
        void reply
          .code(405)
          .header('Allow', 'POST')
          .type('application/json; charset=utf-8')
          .send(jsonRpcError(-32000, 'Method not allowed: this server is stateless, use POST'));
      },
    });
  }
}
