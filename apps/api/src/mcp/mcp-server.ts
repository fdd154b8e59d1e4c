import type { Logger } from '@nestjs/common';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type CallToolResult, McpError } from '@modelcontextprotocol/sdk/types.js';
import { KbqaError } from '@kbqa/core';
import { z } from 'zod';
import { NUM_CHUNKS } from '../chat/chat.dto';
import type { McpCaller, McpKnowledgeService, McpPassage } from './mcp.service';
import type { SourceTexts } from './source-texts';

/** JSON-RPC code the MCP specification gives an unknown resource. */
const RESOURCE_NOT_FOUND = -32002;
export const SOURCE_URI_TEMPLATE = 'kbqa://sources/{id}';
const sourceUri = (id: number) => `kbqa://sources/${id}`;

const passageSchema = z.object({
  link: z.string(),
  title: z.string().optional(),
  content: z.string(),
  relevance_score: z.number().min(0).max(1),
});

export interface McpServerDeps {
  knowledge: McpKnowledgeService;
  sources: SourceTexts;
  version: string;
  logger: Pick<Logger, 'error'>;
}

/**
 * The MCP server of one request (stateless mode: built per request, scoped to the caller's
 * project). Anon keys get the two tools, as they get chat; the sources as resources (whole pages
 * in bulk) are for server keys only.
 */
export function createMcpServer(caller: McpCaller, deps: McpServerDeps): McpServer {
  const server = new McpServer(
    { name: 'kbqa', version: deps.version },
    {
      instructions:
        "Answers questions from this project's documentation. Use `search` for the passages " +
        'that match a question (with links to cite) and `ask` for a written answer with sources.',
    },
  );

  /** Refusals keep their message; anything unexpected is logged and told as an internal error. */
  const guarded = async (run: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    try {
      return await run();
    } catch (e) {
      const error = KbqaError.from(e);
      if (error.code === 'INTERNAL')
        deps.logger.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
      const message = error.code === 'INTERNAL' ? 'Internal server error' : error.message;
      return { isError: true, content: [{ type: 'text', text: `${message} (${error.code})` }] };
    }
  };

  server.registerTool(
    'search',
    {
      title: 'Search the documentation',
      description:
        'Finds the documentation passages that best match a question, best first, each with its ' +
        'link and a relevance score in [0, 1].',
      inputSchema: {
        question: z.string().min(1).max(10_000).describe('The question or search text'),
        where: z
          .record(z.string(), z.unknown())
          .optional()
          .describe(
            'Metadata filter, as in serviceChat: {field: {operator: value}}, operators $eq $ne ' +
              '$gt $gte $lt $lte $in $nin, e.g. {"version": {"$eq": "v5"}}',
          ),
        num_chunks: z
          .number()
          .int()
          .min(NUM_CHUNKS.min)
          .max(NUM_CHUNKS.max)
          .optional()
          .describe(`How many passages to return (default ${NUM_CHUNKS.default})`),
      },
      outputSchema: { passages: z.array(passageSchema) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      guarded(async () => {
        const passages = await deps.knowledge.search(caller, input);
        return {
          content: [{ type: 'text', text: formatPassages(passages) }],
          structuredContent: { passages },
        };
      }),
  );

  server.registerTool(
    'ask',
    {
      title: 'Ask the documentation',
      description:
        'Answers a question from the documentation, citing its pages as [n]; the numbered pages ' +
        'follow the answer. The structured output numbers the passages instead, as serviceChat does.',
      inputSchema: { question: z.string().min(1).max(10_000).describe('The question to answer') },
      outputSchema: {
        answer: z.string(),
        sources: z.array(z.object({ link: z.string(), relevance_score: z.number().min(0).max(1) })),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ question }, extra) =>
      guarded(async () => {
        const { text, ...structured } = await deps.knowledge.ask(caller, question, extra.signal);
        return { content: [{ type: 'text', text }], structuredContent: { ...structured } };
      }),
  );

  if (caller.auth.kind === 'server') {
    const projectId = caller.auth.projectId;
    server.registerResource(
      'source',
      new ResourceTemplate(SOURCE_URI_TEMPLATE, {
        list: async () => ({
          resources: (await deps.sources.list(projectId)).map((s) => ({
            uri: sourceUri(s.id),
            name: s.source,
            mimeType: 'text/markdown',
          })),
        }),
      }),
      {
        title: 'Documentation source',
        description: 'The stored text of one source of the project (a page, document or file)',
        mimeType: 'text/markdown',
      },
      async (uri, variables) => {
        const raw = variables.id;
        const id = typeof raw === 'string' && /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : undefined;
        const found = id === undefined ? undefined : await deps.sources.read(projectId, id);
        if (!found) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri.href}`);
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: found.text }] };
      },
    );
  }
  return server;
}

/** The passages as a model reads them: numbered, with title, link and score above the text. */
export function formatPassages(passages: McpPassage[]): string {
  if (passages.length === 0) return 'No passage of the documentation matches.';
  return passages
    .map((p, i) => {
      const head = [p.title, p.link].filter(Boolean).join(' - ');
      return `[${i + 1}] ${head} (relevance ${p.relevance_score})\n${p.content}`;
    })
    .join('\n\n');
}
