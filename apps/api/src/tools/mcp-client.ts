import { KbqaError } from '@kbqa/core';
import type { GuardedFetch } from '@kbqa/fetcher';
import { redactSecrets } from './tool-definition';
import type { ToolRunResult } from './tool.runner';

/** How to reach one MCP server: its URL, the headers (secrets) it needs, and the guarded fetch. */
export interface McpConnection {
  url: string;
  headers: Record<string, string>;
  fetch: GuardedFetch;
  /** The client name the server sees in `initialize`. */
  clientVersion: string;
}

/** A tool as the MCP server lists it. */
export interface McpToolInfo {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** listTools pages are followed this far: a server listing more is cut, not followed forever. */
const MAX_LIST_PAGES = 10;

/** Loaded on first use: the SDK's client side costs every CLI command a second of start-up otherwise. */
const loadSdk = () =>
  Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
type Client = InstanceType<Awaited<ReturnType<typeof loadSdk>>[0]['Client']>;

/**
 * Opens a session with the server, runs `fn`, and closes it, all within `timeoutMs`. A session
 * per use keeps nothing open between chats, at the price of one `initialize` round trip.
 */
async function withClient<T>(
  conn: McpConnection,
  timeoutMs: number,
  fn: (client: Client, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const [{ Client }, { StreamableHTTPClientTransport }] = await loadSdk();
  const signal = AbortSignal.timeout(timeoutMs);
  const transport = new StreamableHTTPClientTransport(new URL(conn.url), {
    fetch: conn.fetch,
    requestInit: { headers: conn.headers },
  });
  const client = new Client({ name: 'kbqa', version: conn.clientVersion });
  try {
    await client.connect(transport, { signal, timeout: timeoutMs });
    return await fn(client, signal);
  } catch (e) {
    if (signal.aborted)
      throw new KbqaError('TIMEOUT', `the MCP server did not answer within ${timeoutMs} ms`);
    throw e;
  } finally {
    // Ends the session on the server too; a server that does not support DELETE is fine.
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}

/** Every tool the server offers (following pagination up to a bound). */
export function listMcpTools(conn: McpConnection, timeoutMs: number): Promise<McpToolInfo[]> {
  return withClient(conn, timeoutMs, async (client, signal) => {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const res = await client.listTools(cursor === undefined ? {} : { cursor }, {
        signal,
        timeout: timeoutMs,
      });
      for (const t of res.tools) {
        tools.push({
          name: t.name,
          description: t.description ?? t.title ?? t.name,
          parameters: t.inputSchema,
        });
      }
      cursor = res.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  });
}

export interface McpCallOptions {
  timeoutMs: number;
  /** The output text is cut here (UTF-8 bytes), with a marker, as HTTP tool outputs are. */
  maxBytes: number;
}

/**
 * Calls one tool of the server and turns the outcome into a {@link ToolRunResult}: the text
 * contents joined, `isError` as `has_error`. Never throws; `status` is null (there is no one HTTP
 * answer to report) and the header values are redacted from everything returned.
 */
export async function callMcpTool(
  conn: McpConnection,
  name: string,
  args: unknown,
  options: McpCallOptions,
): Promise<ToolRunResult> {
  const secrets = Object.values(conn.headers);
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return failure('invalid arguments: arguments must be a JSON object', secrets);
  }
  try {
    const result = await withClient(conn, options.timeoutMs, (client, signal) =>
      client.callTool({ name, arguments: args as Record<string, unknown> }, undefined, {
        signal,
        timeout: options.timeoutMs,
      }),
    );
    const output = redactSecrets(cap(resultText(result), options.maxBytes), secrets);
    return result.isError === true
      ? { ok: false, status: null, output, has_error: true, error: 'the MCP tool reported an error' }
      : { ok: true, status: null, output, has_error: false };
  } catch (e) {
    return failure(e instanceof Error ? e.message : String(e), secrets);
  }
}

/** The text of a tools/call result: text contents joined, other contents named, structured content as JSON. */
function resultText(result: Record<string, unknown>): string {
  const parts: string[] = [];
  const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  for (const item of content) {
    if (typeof item !== 'object' || item === null) continue;
    const c = item as { type?: unknown; text?: unknown; resource?: { text?: unknown; uri?: unknown } };
    if (c.type === 'text' && typeof c.text === 'string') parts.push(c.text);
    else if (c.type === 'resource' && typeof c.resource?.text === 'string') parts.push(c.resource.text);
    else if (typeof c.type === 'string') parts.push(`[${c.type} content not shown]`);
  }
  if (parts.length === 0 && result.structuredContent !== undefined) {
    return JSON.stringify(result.structuredContent, null, 2);
  }
  return parts.join('\n');
}

/** Cuts text at `maxBytes` of UTF-8, never inside a character, with the runner's marker. */
function cap(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  // Dropping a cut character's leading bytes: decode then drop a trailing replacement character.
  const cut = bytes
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${cut}\n[output truncated at ${maxBytes} bytes]`;
}

function failure(error: string, secrets: readonly string[]): ToolRunResult {
  return { ok: false, status: null, output: '', has_error: true, error: redactSecrets(error, secrets) };
}
