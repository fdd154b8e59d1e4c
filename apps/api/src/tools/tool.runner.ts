import { KbqaError, type WebFetcher } from '@kbqa/core';
import { argumentsError, fillBody, fillUrl, redactSecrets, type ToolMethod } from './tool-definition';

/** What a runner needs of a stored tool. */
export interface RunnableTool {
  name: string;
  method: ToolMethod;
  url: string;
  parameters: Record<string, unknown>;
  headers: Record<string, string>;
  body: unknown;
}

/** The outcome of one tool call: always an answer, never a throw (a failing tool is an error text). */
export interface ToolRunResult {
  /** The server answered 2xx. */
  ok: boolean;
  /** HTTP status, null when no answer came (bad arguments, refused address, network error, timeout). */
  status: number | null;
  /** The response body as text (JSON pretty-printed), cut at the size cap, secrets redacted. */
  output: string;
  has_error: boolean;
  error?: string;
}

export interface ToolRunnerOptions {
  /** Whole call, from send to the last body byte. */
  timeoutMs: number;
  /** Response bodies are cut here, with a marker. */
  maxBytes: number;
  /** Where the runner reports each call: the tool's name and the status, never a header or body. */
  log?: (line: string) => void;
}

/**
 * Calls HTTP tools through the safe fetcher (private addresses only for allowlisted hosts,
 * timeouts, size cap) and turns every outcome into a {@link ToolRunResult}.
 */
export class ToolRunner {
  constructor(
    private readonly fetcher: WebFetcher,
    private readonly options: ToolRunnerOptions,
  ) {}

  async run(tool: RunnableTool, args: unknown): Promise<ToolRunResult> {
    const secrets = Object.values(tool.headers);
    const invalid = argumentsError(tool.parameters, args);
    if (invalid !== undefined) {
      this.options.log?.(`tool ${tool.name}: arguments refused`);
      return failure(null, `invalid arguments: ${invalid}`, secrets);
    }
    const values = args as Record<string, unknown>;
    const headers: Record<string, string> = { ...tool.headers };
    let body: string | undefined;
    if (tool.body !== undefined && tool.method !== 'GET') {
      body = JSON.stringify(fillBody(tool.body, values));
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
        headers['content-type'] = 'application/json';
      }
    }
    try {
      const res = await this.fetcher.fetch(fillUrl(tool.url, values), {
        method: tool.method,
        headers,
        // Every stored header is a secret of the tool's own API: a redirect elsewhere does not get it.
        secretHeaders: Object.keys(tool.headers),
        body,
        accept: 'application/json, text/*;q=0.9, */*;q=0.5',
        maxBytes: this.options.maxBytes,
        truncate: true,
        // An API the operator configured, not a page to crawl.
        ignoreRobots: true,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      this.options.log?.(`tool ${tool.name}: HTTP ${res.status}`);
      let output = formatOutput(res.body, res.contentType, res.truncated === true);
      if (res.truncated) output += `\n[output truncated at ${this.options.maxBytes} bytes]`;
      output = redactSecrets(output, secrets);
      const ok = res.status >= 200 && res.status < 300;
      return ok
        ? { ok, status: res.status, output, has_error: false }
        : {
            ok,
            status: res.status,
            output,
            has_error: true,
            error: `the tool's server answered HTTP ${res.status}`,
          };
    } catch (e) {
      const code = e instanceof KbqaError ? e.code : 'INTERNAL';
      this.options.log?.(`tool ${tool.name}: failed (${code})`);
      let message = e instanceof Error ? e.message : String(e);
      if (e instanceof Error && (e.name === 'TimeoutError' || code === 'ABORTED' || code === 'TIMEOUT')) {
        message = `the tool did not answer within ${this.options.timeoutMs} ms`;
      }
      return failure(null, message, secrets);
    }
  }
}

function failure(status: number | null, error: string, secrets: readonly string[]): ToolRunResult {
  return { ok: false, status, output: '', has_error: true, error: redactSecrets(error, secrets) };
}

/** The body as text; JSON pretty-printed when it is complete JSON. */
function formatOutput(body: Buffer, contentType: string, truncated: boolean): string {
  const text = body.toString('utf8');
  if (truncated) return text;
  if (contentType === 'application/json' || contentType.endsWith('+json') || /^\s*[[{]/.test(text)) {
    try {
      return JSON.stringify(JSON.parse(text) as unknown, null, 2);
    } catch {
      return text;
    }
  }
  return text;
}
