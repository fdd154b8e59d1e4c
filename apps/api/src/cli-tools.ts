import { readFile } from 'node:fs/promises';
import { intArg, UsageError } from './cli-args';
import type { ToolRunResult } from './tools/tool.runner';
import type { ToolSourcesService, ToolSourceView } from './tools/tool-sources.service';
import type { ToolsService, ToolView } from './tools/tools.service';

/**
 * `kbqa tools …`: add, list, remove, test, import, and `sources …`. Header values are never
 * printed (masked or redacted).
 */
export async function toolsCommand(
  tools: ToolsService,
  sources: ToolSourcesService,
  args: readonly string[],
  flags: Map<string, string | true>,
): Promise<{ text: string; json: unknown }> {
  const [action, arg] = args;
  if (action === 'add') {
    const projectId = intArg(flags.get('project'), '--project');
    const file = flags.get('file');
    if (typeof file !== 'string') throw new UsageError('tools add needs --file <tool.json>');
    const tool = await tools.create(projectId, await readDefinition(file));
    return { text: `created tool ${tool.id} "${tool.name}" in project ${tool.project_id}`, json: tool };
  }
  if (action === 'list') {
    const list = await tools.list(intArg(flags.get('project'), '--project'));
    return { text: list.map(line).join('\n') || 'no tools', json: { tools: list } };
  }
  if (action === 'remove') {
    const id = intArg(arg, 'tool id');
    await tools.delete(id);
    return { text: `tool ${id} removed`, json: { id, deleted: true } };
  }
  if (action === 'test') {
    const id = intArg(arg, 'tool id');
    const raw = flags.get('args') ?? '{}';
    if (raw === true) throw new UsageError('--args needs a JSON object, e.g. --args \'{"q":"x"}\'');
    let args: unknown;
    try {
      args = JSON.parse(raw);
    } catch {
      throw new UsageError('--args is not valid JSON');
    }
    const result = await tools.test(id, args);
    if (result.has_error) process.exitCode = 1;
    return { text: describeRun(result), json: result };
  }
  if (action === 'import') {
    const projectId = intArg(flags.get('project'), '--project');
    const from = flags.get('openapi');
    if (typeof from !== 'string') throw new UsageError('tools import needs --openapi <file-or-url>');
    const operations = flags.get('operations');
    if (operations === true)
      throw new UsageError('--operations needs a comma-separated list of operationIds');
    const result = await tools.importOpenApi(projectId, {
      ...(/^https?:\/\//i.test(from) ? { url: from } : { document: await readText(from) }),
      headers: headerFlags(flags.get('header')),
      public: flags.has('public'),
      operations: operations?.split(',').map((o) => o.trim()),
    });
    const text = [
      ...result.tools.map((t) => `created ${line(t)}`),
      ...result.skipped.map((s) => `skipped ${s.operation}: ${s.reason}`),
      ...result.notes.map((n) => `note: ${n}`),
    ];
    return { text: text.join('\n') || 'the document has no operations', json: result };
  }
  if (action === 'sources') return sourcesCommand(sources, args.slice(1), flags);
  throw new UsageError(`unknown command: tools ${action ?? ''}`.trim());
}

/** `kbqa tools sources add|list|remove|tools`. */
async function sourcesCommand(
  sources: ToolSourcesService,
  [action, arg]: readonly string[],
  flags: Map<string, string | true>,
): Promise<{ text: string; json: unknown }> {
  if (action === 'add') {
    const projectId = intArg(flags.get('project'), '--project');
    const url = flags.get('mcp');
    if (typeof url !== 'string') throw new UsageError('tools sources add needs --mcp <url>');
    const name = flags.get('name');
    if (name === true) throw new UsageError('--name needs a value');
    const source = await sources.create(projectId, {
      kind: 'mcp',
      url,
      headers: headerFlags(flags.get('header')),
      public: flags.has('public'),
      name,
    });
    return {
      text: `added tool source ${source.id} "${source.name}" to project ${source.project_id}`,
      json: source,
    };
  }
  if (action === 'list') {
    const list = await sources.list(intArg(flags.get('project'), '--project'));
    return { text: list.map(sourceLine).join('\n') || 'no tool sources', json: { tool_sources: list } };
  }
  if (action === 'remove') {
    const id = intArg(arg, 'tool source id');
    await sources.delete(id);
    return { text: `tool source ${id} removed`, json: { id, deleted: true } };
  }
  if (action === 'tools') {
    const list = await sources.liveTools(intArg(arg, 'tool source id'));
    return {
      text: list.map((t) => `${t.name}\t${t.description.split('\n')[0] ?? ''}`).join('\n') || 'no tools',
      json: { tools: list },
    };
  }
  throw new UsageError(`unknown command: tools sources ${action ?? ''}`.trim());
}

function sourceLine(s: ToolSourceView): string {
  const headers = Object.entries(s.headers).map(([h, v]) => `${h}: ${v}`);
  return [s.id, s.name, s.kind, s.url, s.public ? 'public' : 'private', headers.join(', ')]
    .filter((f) => f !== '')
    .join('\t');
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
}

/** `--header 'Name: value'` flags (repeats joined by line breaks) as a header map. */
export function headerFlags(raw: string | true | undefined): Record<string, string> {
  if (raw === undefined) return {};
  if (raw === true) throw new UsageError("--header needs 'Name: value'");
  const headers: Record<string, string> = {};
  for (const entry of raw.split('\n')) {
    const colon = entry.indexOf(':');
    // The entry is not echoed: its value is a secret.
    if (colon <= 0) throw new UsageError("--header needs 'Name: value'");
    headers[entry.slice(0, colon).trim()] = entry.slice(colon + 1).trim();
  }
  return headers;
}

async function readDefinition(file: string): Promise<unknown> {
  const text = await readText(file);
  try {
    return JSON.parse(text);
  } catch {
    // Not the parser's message: it may quote the file, header values included.
    throw new UsageError(`${file} is not valid JSON`);
  }
}

function line(t: ToolView): string {
  const headers = Object.entries(t.headers).map(([h, v]) => `${h}: ${v}`);
  return [t.id, t.name, t.method, t.url, t.public ? 'public' : 'private', headers.join(', ')]
    .filter((f) => f !== '')
    .join('\t');
}

function describeRun(r: ToolRunResult): string {
  const head = r.has_error ? `error: ${r.error ?? 'failed'}` : `HTTP ${r.status}`;
  return r.output ? `${head}\n${r.output}` : head;
}
