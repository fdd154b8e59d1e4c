import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import {
  KbqaError,
  nowTimestamp,
  toIsoUtc,
  type ToolChanges,
  type ToolRecord,
  type ToolRepository,
} from '@kbqa/core';
import { SafeFetcher } from '@kbqa/fetcher';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { TOOL_REPOSITORY } from '../database/projects.providers';
import { ProjectsService } from '../projects/projects.service';
import { chooseChatTools, MAX_TOOLS_PER_CHAT } from './chat-tool-choice';
import { OPENAPI_MAX_DOCUMENT_BYTES, OPENAPI_MAX_TOOLS_PER_PROJECT } from './openapi-limits';
import { parseOpenApiText, toolsFromOpenApi, type SkippedOperation } from './openapi-import';
import {
  maskHeaders,
  parseHeaders,
  parseToolDefinition,
  SECRET_MASK,
  type ToolDefinition,
  type ToolMethod,
} from './tool-definition';
import { ToolRunner, type ToolRunResult } from './tool.runner';
import { SecretBox } from './secret-box';
import { ToolSourcesService } from './tool-sources.service';

/** The setting that refusals of private addresses name (the same as the loaders'). */
const ALLOWLIST_SETTING = 'KBQA_ALLOW_PRIVATE_HOSTS';

/** A tool as every API and the CLI show it: header values masked. */
export interface ToolView {
  id: number;
  project_id: number;
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  method: ToolMethod;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  public: boolean;
  created_at: string;
  updated_at: string;
}

/**
 * A tool as a chat offers it to the model: what the model sees, and how to call it. HTTP tools
 * and the tools of MCP servers (tool sources) both come out in this shape, so the chat loop
 * does not care where a tool lives.
 */
export interface ChatTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
  /** Never throws: a failing tool is a result with `has_error` and an error text. */
  run(args: unknown): Promise<ToolRunResult>;
}

/** `POST /admin/v1/projects/:id/tools/import-openapi` (docs/api.md, "Import from OpenAPI"). */
export interface OpenApiImportInput {
  /** The document: a JSON object, or its text (JSON or YAML). */
  document?: unknown;
  /** Where to fetch the document, through the tools' fetcher (same address policy). */
  url?: string;
  /** Set on every created tool; secrets like any tool header. */
  headers?: unknown;
  public?: boolean;
  /** Only these operationIds. */
  operations?: string[];
}

export interface OpenApiImportResult {
  tools: ToolView[];
  skipped: SkippedOperation[];
  /** What the operator should know about the result as a whole (the per-chat tool limit). */
  notes: string[];
}

/** Builds the tools' fetcher: the loaders' address policy and allowlist, no retries, the tool time limit. */
export function createToolFetcher(config: AppConfig): SafeFetcher {
  return new SafeFetcher({
    userAgent: config.web.userAgent,
    allowPrivateHosts: config.web.allowPrivateHosts,
    allowlistSetting: ALLOWLIST_SETTING,
    // A tool call waits on a person: fail fast rather than retry a failing API.
    retries: 0,
    connectTimeoutMs: Math.min(config.tools.timeoutMs, 10_000),
    requestTimeoutMs: config.tools.timeoutMs,
    maxBytes: config.tools.maxBytes,
  });
}

/**
 * HTTP tool definitions per project (docs/api.md, "Tools"). Header values are secrets: they are
 * stored and sent, and never returned — every view masks them, and test outputs are redacted.
 */
@Injectable()
export class ToolsService implements OnModuleDestroy {
  private readonly fetcher: SafeFetcher;
  private readonly runner: ToolRunner;
  private readonly logger = new Logger('Tools');

  constructor(
    @Inject(TOOL_REPOSITORY) private readonly tools: ToolRepository,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly projects: ProjectsService,
    private readonly sources: ToolSourcesService,
    private readonly box: SecretBox,
  ) {
    this.fetcher = createToolFetcher(config);
    this.runner = new ToolRunner(this.fetcher, {
      timeoutMs: config.tools.timeoutMs,
      maxBytes: config.tools.maxBytes,
      log: (line) => this.logger.log(line),
    });
  }

  onModuleDestroy(): void {
    this.fetcher.close();
  }

  async list(projectId: number): Promise<ToolView[]> {
    await this.projects.getProject(projectId);
    return (await this.tools.list(projectId)).map(view);
  }

  /**
   * The tools a chat may use: every tool of the project for a server key, only the ones marked
   * public for an anon key (its holder is any visitor of the widget's page).
   */
  async usableInChat(projectId: number, keyKind: 'server' | 'anon'): Promise<ToolView[]> {
    return (await this.tools.list(projectId, { publicOnly: keyKind === 'anon' })).map(view);
  }

  /**
   * {@link usableInChat} as callable tools, for the chat loop, followed by the tools of the
   * project's MCP sources (public ones only for an anon key), listed live from their servers: a
   * source that cannot be listed is logged and left out, and a source tool whose name an HTTP
   * tool has is offered as `<source>_<tool>` (see ToolSourcesService.chatTools). A chat offers at
   * most MAX_TOOLS_PER_CHAT of them: the most relevant to the question when there are more.
   */
  async chatTools(projectId: number, keyKind: 'server' | 'anon', question = ''): Promise<ChatTool[]> {
    const rows = await this.tools.list(projectId, { publicOnly: keyKind === 'anon' });
    const http: ChatTool[] = rows.map((row) => ({
      name: row.name,
      description: row.description,
      parameters: row.parameters,
      // Secrets are opened at call time: one that does not open fails that call, not the chat.
      run: async (args: unknown) => {
        let def: ToolDefinition;
        try {
          def = definition(row, this.box);
        } catch (e) {
          const error = e instanceof Error ? e.message : String(e);
          return { ok: false, status: null, output: '', has_error: true, error };
        }
        return this.runner.run(def, args);
      },
    }));
    const fromSources = await this.sources.chatTools(projectId, keyKind, new Set(http.map((t) => t.name)));
    return chooseChatTools([...http, ...fromSources], question);
  }

  async show(id: number): Promise<ToolView> {
    return view(await this.entity(id));
  }

  async create(projectId: number, input: unknown): Promise<ToolView> {
    await this.projects.getProject(projectId);
    const def = parseToolDefinition(input);
    await this.assertNameFree(projectId, def.name);
    const now = nowTimestamp();
    return view(
      await this.tools.create({ projectId, ...columns(def, this.box), createdAt: now, updatedAt: now }),
    );
  }

  /**
   * Changes the given fields. `headers`, when sent, is the full new set; a value of `••••` keeps
   * that header's stored secret, so a client can send back what it was shown.
   */
  async update(id: number, changes: object): Promise<ToolView> {
    // A DTO may carry its absent fields as own properties set to undefined.
    const patch = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    const row = await this.entity(id);
    const current = definition(row, this.box);
    let headers: unknown = current.headers;
    if (patch.headers !== undefined) {
      headers = patch.headers;
      if (typeof headers === 'object' && headers !== null && !Array.isArray(headers)) {
        headers = Object.fromEntries(
          Object.entries(headers).map(([name, value]) => {
            if (value !== SECRET_MASK) return [name, value];
            const stored = Object.entries(current.headers).find(
              ([h]) => h.toLowerCase() === name.toLowerCase(),
            );
            if (!stored) throw new KbqaError('BAD_REQUEST', `header ${name} has no stored value to keep`);
            return [name, stored[1]];
          }),
        );
      }
    }
    const merged: Record<string, unknown> = { ...current, ...patch, headers };
    // `body: null` removes the body template.
    if (patch.body === null) delete merged.body;
    const def = parseToolDefinition(merged);
    if (def.name !== row.name) await this.assertNameFree(row.projectId, def.name);
    const updated = await this.tools.update(row.id, { ...columns(def, this.box), updatedAt: nowTimestamp() });
    if (!updated) throw new KbqaError('NOT_FOUND', `tool ${id} does not exist`);
    return view(updated);
  }

  async delete(id: number): Promise<void> {
    const row = await this.entity(id);
    await this.tools.delete(row.id);
  }

  /**
   * Creates one HTTP tool per operation of an OpenAPI 3 document. Operations that cannot become a
   * tool, and names the project already has (never overwritten), come back in `skipped`.
   */
  async importOpenApi(projectId: number, input: OpenApiImportInput): Promise<OpenApiImportResult> {
    await this.projects.getProject(projectId);
    if ((input.document === undefined) === (input.url === undefined)) {
      throw new KbqaError('BAD_REQUEST', 'give either document or url');
    }
    const headers = parseHeaders(input.headers);
    let document = input.document;
    if (input.url !== undefined) document = await this.fetchDocument(input.url);
    else if (typeof document === 'string') document = parseOpenApiText(document);
    const { tools, skipped } = toolsFromOpenApi(document, {
      documentUrl: input.url,
      operations: input.operations,
      headerNames: Object.keys(headers),
    });
    const created: ToolView[] = [];
    let count = await this.tools.count(projectId);
    for (const tool of tools) {
      const name = tool.definition.name;
      if (count >= OPENAPI_MAX_TOOLS_PER_PROJECT) {
        skipped.push({
          operation: tool.operation,
          name,
          reason: `the project has reached the limit of ${OPENAPI_MAX_TOOLS_PER_PROJECT} tools; not created`,
        });
        continue;
      }
      if (await this.tools.nameTaken(projectId, name)) {
        skipped.push({
          operation: tool.operation,
          name,
          reason: `the project already has a tool named ${name}; not overwritten`,
        });
        continue;
      }
      let def: ToolDefinition;
      try {
        def = parseToolDefinition({ ...tool.definition, headers, public: input.public ?? false });
      } catch (e) {
        skipped.push({ operation: tool.operation, name, reason: e instanceof Error ? e.message : String(e) });
        continue;
      }
      const now = nowTimestamp();
      created.push(
        view(
          await this.tools.create({ projectId, ...columns(def, this.box), createdAt: now, updatedAt: now }),
        ),
      );
      count += 1;
    }
    this.logger.log(
      `project ${projectId}: imported ${created.length} tool(s) from OpenAPI, skipped ${skipped.length}`,
    );
    const notes =
      count > MAX_TOOLS_PER_CHAT
        ? [
            `the project has ${count} tools; a chat offers at most ${MAX_TOOLS_PER_CHAT} of them, ` +
              'the ones whose names and descriptions best match the question',
          ]
        : [];
    return { tools: created, skipped, notes };
  }

  private async fetchDocument(url: string): Promise<unknown> {
    try {
      const res = await this.fetcher.fetch(url, {
        accept: 'application/json, application/yaml;q=0.9, */*;q=0.5',
        maxBytes: OPENAPI_MAX_DOCUMENT_BYTES,
        ignoreRobots: true,
      });
      if (res.status < 200 || res.status >= 300) {
        throw new KbqaError('BAD_REQUEST', `could not fetch the OpenAPI document: HTTP ${res.status}`);
      }
      return parseOpenApiText(res.body.toString('utf8'));
    } catch (e) {
      if (e instanceof KbqaError && e.code === 'BAD_REQUEST') throw e;
      const message = e instanceof Error ? e.message : String(e);
      throw new KbqaError('BAD_REQUEST', `could not fetch the OpenAPI document: ${message}`);
    }
  }

  /** Calls the tool with these arguments, as a chat would; secrets are redacted from the result. */
  async test(id: number, args: unknown): Promise<ToolRunResult> {
    const row = await this.entity(id);
    return this.runner.run(definition(row, this.box), args);
  }

  private async entity(id: number): Promise<ToolRecord> {
    const row = await this.tools.find(id);
    if (!row) throw new KbqaError('NOT_FOUND', `tool ${id} does not exist`);
    return row;
  }

  private async assertNameFree(projectId: number, name: string): Promise<void> {
    if (await this.tools.nameTaken(projectId, name)) {
      throw new KbqaError('BAD_REQUEST', `project ${projectId} already has a tool named ${name}`);
    }
  }
}

/** The row's columns for a definition; header values sealed. */
function columns(def: ToolDefinition, box: SecretBox): Omit<ToolChanges, 'updatedAt'> {
  return {
    name: def.name,
    description: def.description,
    parameters: def.parameters,
    method: def.method,
    url: def.url,
    headers: Object.entries(def.headers).map(([name, value]) => ({ name, value: box.seal(value) })),
    body: def.body === undefined ? null : def.body,
    isPublic: def.public,
  };
}

/** The stored row as a definition, secrets included: for the runner and for merging patches only. */
function definition(row: ToolRecord, box: SecretBox): ToolDefinition {
  return {
    name: row.name,
    description: row.description,
    parameters: row.parameters,
    method: row.method as ToolMethod,
    url: row.url,
    headers: Object.fromEntries(row.headers.map((h) => [h.name, box.open(h.value)])),
    body: row.body === null ? undefined : row.body,
    public: row.isPublic,
  };
}

/** The row as the API shows it; header values are masked, so they are never opened here. */
function view(row: ToolRecord): ToolView {
  return {
    id: row.id,
    project_id: row.projectId,
    name: row.name,
    description: row.description,
    parameters: row.parameters,
    method: row.method as ToolMethod,
    url: row.url,
    headers: maskHeaders(Object.fromEntries(row.headers.map((h) => [h.name, h.value]))),
    body: row.body,
    public: row.isPublic,
    created_at: toIsoUtc(row.createdAt),
    updated_at: toIsoUtc(row.updatedAt),
  };
}
