import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  KbqaError,
  nowTimestamp,
  toIsoUtc,
  type ToolSourceRecord,
  type ToolSourceRepository,
} from '@kbqa/core';
import { AddressPolicy, createGuardedFetch, type GuardedFetch } from '@kbqa/fetcher';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { TOOL_SOURCE_REPOSITORY } from '../database/projects.providers';
import { ProjectsService } from '../projects/projects.service';
import { callMcpTool, listMcpTools, type McpConnection, type McpToolInfo } from './mcp-client';
import { toolName } from './openapi-import';
import { SecretBox } from './secret-box';
import { maskHeaders, parseHeaders, redactSecrets } from './tool-definition';
import type { ChatTool } from './tools.service';

/** The setting that refusals of private addresses name (the same as the loaders' and tools'). */
const ALLOWLIST_SETTING = 'KBQA_ALLOW_PRIVATE_HOSTS';
const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const URL_MAX = 2048;
/** Listing a source's tools at chat time waits at most this long: a chat must not hang on one server. */
const LIST_TIMEOUT_MAX_MS = 5_000;

export const TOOL_SOURCE_KINDS = ['mcp'] as const;
export type ToolSourceKind = (typeof TOOL_SOURCE_KINDS)[number];

/** A tool source as every API and the CLI show it: header values masked. */
export interface ToolSourceView {
  id: number;
  project_id: number;
  kind: ToolSourceKind;
  name: string;
  url: string;
  headers: Record<string, string>;
  public: boolean;
  created_at: string;
  updated_at: string;
}

export interface CreateToolSourceInput {
  kind: string;
  url: string;
  headers?: unknown;
  public?: boolean;
  name?: string;
}

/**
 * MCP servers as tool sources of a project (docs/api.md, "Tools", "MCP servers as tool sources").
 * Their tools are listed live, never stored: what a chat offers is what the server offers now.
 * Header values are secrets, like the HTTP tools'.
 */
@Injectable()
export class ToolSourcesService {
  private readonly policy: AddressPolicy;
  private readonly fetch: GuardedFetch;
  private readonly logger = new Logger('ToolSources');

  constructor(
    @Inject(TOOL_SOURCE_REPOSITORY) private readonly sources: ToolSourceRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly projects: ProjectsService,
    private readonly box: SecretBox,
  ) {
    const connectTimeoutMs = Math.min(config.tools.timeoutMs, 10_000);
    this.policy = new AddressPolicy({
      allowPrivateHosts: config.web.allowPrivateHosts,
      allowlistSetting: ALLOWLIST_SETTING,
      lookupTimeoutMs: connectTimeoutMs,
    });
    // Protocol messages and tool outputs share the stream; the output itself is capped later.
    this.fetch = createGuardedFetch(this.policy, {
      connectTimeoutMs,
      maxResponseBytes: config.tools.maxBytes * 4 + 1024 * 1024,
    });
  }

  async list(projectId: number): Promise<ToolSourceView[]> {
    await this.projects.getProject(projectId);
    return (await this.sources.list(projectId)).map(view);
  }

  async create(projectId: number, input: CreateToolSourceInput): Promise<ToolSourceView> {
    await this.projects.getProject(projectId);
    if (!(TOOL_SOURCE_KINDS as readonly string[]).includes(input.kind)) {
      throw new KbqaError('BAD_REQUEST', `kind must be one of ${TOOL_SOURCE_KINDS.join(', ')}`);
    }
    const url = await this.checkUrl(input.url);
    const headers = parseHeaders(input.headers);
    let name = input.name;
    if (name !== undefined) {
      if (!NAME.test(name))
        throw new KbqaError('BAD_REQUEST', 'name must be 1 to 64 letters, digits, "_" or "-"');
      if (await this.sources.nameTaken(projectId, name)) {
        throw new KbqaError('BAD_REQUEST', `project ${projectId} already has a tool source named ${name}`);
      }
    } else {
      name = await this.freeName(projectId, toolName(url.hostname) ?? 'mcp');
    }
    const now = nowTimestamp();
    const row = await this.sources.create({
      projectId,
      kind: input.kind,
      name,
      url: url.href,
      headers: Object.entries(headers).map(([n, value]) => ({ name: n, value: this.box.seal(value) })),
      isPublic: input.public ?? false,
      createdAt: now,
      updatedAt: now,
    });
    return view(row);
  }

  async delete(id: number): Promise<void> {
    const row = await this.entity(id);
    await this.sources.delete(row.id);
  }

  /** The source's tools as its server lists them now; FETCH_FAILED (502) when it cannot be reached. */
  async liveTools(id: number): Promise<McpToolInfo[]> {
    const row = await this.entity(id);
    try {
      return await listMcpTools(this.connection(row), this.config.tools.timeoutMs);
    } catch (e) {
      if (e instanceof KbqaError && (e.code === 'FETCH_REFUSED' || e.code === 'TIMEOUT')) throw e;
      throw new KbqaError(
        'FETCH_FAILED',
        `could not list the tools of source ${row.name}: ${this.reason(e, row)}`,
      );
    }
  }

  /**
   * The tools of the project's sources, listed live, as chat tools. A source that fails to list is
   * logged by name and left out. A tool whose name is taken (by an HTTP tool or an earlier source)
   * is offered as `<source>_<tool>`; if that is taken too it is left out with a log line.
   */
  async chatTools(projectId: number, keyKind: 'server' | 'anon', taken: Set<string>): Promise<ChatTool[]> {
    const rows = await this.sources.list(projectId, { publicOnly: keyKind === 'anon' });
    const listTimeout = Math.min(this.config.tools.timeoutMs, LIST_TIMEOUT_MAX_MS);
    const listed = await Promise.all(
      rows.map(async (row) => {
        try {
          const conn = this.connection(row);
          return { conn, tools: await listMcpTools(conn, listTimeout) };
        } catch (e) {
          this.logger.warn(
            `tool source ${row.name}: skipped, could not list its tools (${this.reason(e, row)})`,
          );
          return undefined;
        }
      }),
    );
    const out: ChatTool[] = [];
    rows.forEach((row, i) => {
      const found = listed[i];
      if (found === undefined) return;
      const { conn } = found;
      for (const tool of found.tools) {
        const own = toolName(tool.name);
        const prefixed = toolName(`${row.name}_${tool.name}`);
        const name = own !== undefined && !taken.has(own) ? own : prefixed;
        if (name === undefined || taken.has(name)) {
          this.logger.warn(`tool source ${row.name}: tool ${tool.name} skipped, its name is taken`);
          continue;
        }
        taken.add(name);
        out.push({
          name,
          description: tool.description,
          parameters: tool.parameters,
          run: (args: unknown) =>
            callMcpTool(conn, tool.name, args, {
              timeoutMs: this.config.tools.timeoutMs,
              maxBytes: this.config.tools.maxBytes,
            }),
        });
      }
    });
    return out;
  }

  /** An http(s) URL the address policy admits: BAD_REQUEST naming the allowlist setting otherwise. */
  private async checkUrl(raw: unknown): Promise<URL> {
    if (typeof raw !== 'string' || raw.length > URL_MAX) {
      throw new KbqaError('BAD_REQUEST', `url must be an http(s) URL of at most ${URL_MAX} characters`);
    }
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new KbqaError('BAD_REQUEST', 'url must be an http(s) URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new KbqaError('BAD_REQUEST', 'url must be an http(s) URL');
    }
    if (url.username || url.password) {
      throw new KbqaError('BAD_REQUEST', 'url must not hold credentials; put them in headers');
    }
    try {
      await this.policy.resolve(url);
    } catch (e) {
      // Refused now rather than at every chat. A name that does not resolve yet may later: kept.
      if (e instanceof KbqaError && e.code === 'FETCH_REFUSED') throw new KbqaError('BAD_REQUEST', e.message);
    }
    return url;
  }

  private async freeName(projectId: number, base: string): Promise<string> {
    for (let n = 1; ; n++) {
      const name = n === 1 ? base : `${base.slice(0, 60)}_${n}`;
      if (!(await this.sources.nameTaken(projectId, name))) return name;
    }
  }

  private connection(row: ToolSourceRecord): McpConnection {
    return {
      url: row.url,
      headers: Object.fromEntries(row.headers.map((h) => [h.name, this.box.open(h.value)])),
      fetch: this.fetch,
      clientVersion: this.config.version,
    };
  }

  /** An error's message with the source's header values masked: it may echo a request. */
  private reason(e: unknown, row: ToolSourceRecord): string {
    const message = e instanceof Error ? e.message : String(e);
    const secrets = row.headers.flatMap((h) => {
      try {
        return [this.box.open(h.value)];
      } catch {
        return [];
      }
    });
    return redactSecrets(message, secrets);
  }

  private async entity(id: number): Promise<ToolSourceRecord> {
    const row = await this.sources.find(id);
    if (!row) throw new KbqaError('NOT_FOUND', `tool source ${id} does not exist`);
    return row;
  }
}

function view(row: ToolSourceRecord): ToolSourceView {
  return {
    id: row.id,
    project_id: row.projectId,
    kind: row.kind as ToolSourceKind,
    name: row.name,
    url: row.url,
    headers: maskHeaders(Object.fromEntries(row.headers.map((h) => [h.name, h.value]))),
    public: row.isPublic,
    created_at: toIsoUtc(row.createdAt),
    updated_at: toIsoUtc(row.updatedAt),
  };
}
