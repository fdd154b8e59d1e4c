#!/usr/bin/env node
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { type INestApplicationContext, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { ChunkStore } from '@kbqa/core';
import type { ProjectEntity } from '@kbqa/store-sqlite';
import { type AppConfig, loadConfig } from './config/config';
import { CliModule, WorkerModule } from './cli.module';
import { CHUNK_STORE } from './database/database.module';
import { adminTokenCommand } from './cli-admin';
import { importLlmModelCommand, isLlmModelName, pullLlmModelCommand } from './cli-llm-models';
import { listModelsCommand, pullCommand, reindexCommand } from './cli-models';
import { showTask } from './cli-tasks';
import { indexesCommand } from './cli-indexes';
import { storeCommand } from './cli-store';
import { toolsCommand } from './cli-tools';
import { intArg, UsageError } from './cli-args';
import { IndexesService } from './indexes/indexes.service';
import { ProjectsService } from './projects/projects.service';
import { ToolSourcesService } from './tools/tool-sources.service';
import { ToolsService } from './tools/tools.service';

/** What a command prints: a line for people, and the one JSON object of --json. */
interface Output {
  text: string;
  json: unknown;
}

const usage = (
  config: AppConfig,
) => `Usage: kbqa <command> [--json]   (pnpm kbqa … in a clone of the repository)

  start                                     serve the API on PORT (3000) with ingestion workers
  projects create <name>                    create a project
  projects list                             list projects
  projects set <id> --export on|off         switch message export (getMessagesData)
  projects set <id> --origins <origin,…>    origins whose pages may embed the widget (anon key), e.g.
                                            https://docs.example.com,https://example.com; "*" for any,
                                            "" for none
  keys create --project <id> --kind server|anon
                                            create an API key (shown once)
  keys list --project <id>                  list a project's keys (never the secret)
  keys revoke <key-id>                      revoke a key
  worker                                    run ingestion workers only (needs REDIS_URL)
  tasks show <task-id>                      what an ingestion task did: every URL indexed or skipped, and why
  indexes list --project <id>               a project's indexes (one per ingestData root): pages, auto sync, last sync
  indexes show <index-id>                   one index
  indexes sync <index-id> --on|--off        switch auto sync (every KBQA_SYNC_INTERVAL, default 24h)
  indexes resync <index-id>                 sync an index now (only what changed is fetched and embedded)
  indexes delete <index-id>                 delete an index with every page it brought in
  tools add --project <id> --file <tool.json>
                                            add an HTTP tool (docs/api.md, "Tools"); header values are
                                            secrets, shown as •••• from then on
  tools list --project <id>                 a project's tools
  tools remove <tool-id>                    delete a tool
  tools test <tool-id> --args '<json>'      call a tool with these arguments and print its output
  tools import --project <id> --openapi <file-or-url> [--header 'Name: value']… [--public]
               [--operations id,id…]       one tool per operation of an OpenAPI 3 document (JSON or
                                            YAML); prints what was created and what was skipped, and why
  tools sources add --project <id> --mcp <url> [--header 'Name: value']… [--public] [--name <name>]
                                            add an MCP server (Streamable HTTP) whose tools chats may call
  tools sources list --project <id>         a project's tool sources
  tools sources tools <source-id>           the source's tools, listed live from its server
  tools sources remove <source-id>          remove a tool source
  models list                               configured and known models: dimensions, prefixes, cached or not;
                                            local chat models (KBQA_LLM=local): size, context, licence, RAM
  models import <file.gguf> [--name <name>] [--sha256 <hex>]
                                            install a GGUF chat model copied here by hand (checked: GGUF,
                                            complete, a chat architecture, the sha256 when known)
  models pull [id] [--rerank]               download a model (default KBQA_EMBED_MODEL and KBQA_RERANK_MODEL)
  models pull <chat-model> | --llm [--sha256 <hex>]
                                            download a chat model of the list for KBQA_LLM=local (default
                                            KBQA_LLM_MODEL), with progress; resumes; checks sha256 and GGUF
  reindex [--project <id>]                  embed chunks that have no vector yet, with progress;
                                            after a model change, re-embeds every project
  store copy --to <postgres-url>            copy this data directory's SQLite deployment (projects, keys,
                                            sources, chunks, conversations, vectors…) into an empty
                                            PostgreSQL database, ids kept; then run with KBQA_DATABASE_URL
                                            (docs/postgres.md)
  admin token                               new operator token for /admin/v1 (shown once; replaces
                                            the previous one; not with KBQA_ADMIN_TOKEN set)

Data directory: ${config.dataDir}
  (KBQA_DATA_DIR, default ./data in the current directory: run every command with the same value as
  the service, or they work on different databases)
Environment: KBQA_DATA_DIR, KBQA_DATABASE_URL (PostgreSQL instead of the directory's SQLite file), REDIS_URL,
  KBQA_ADMIN_TOKEN, see docs/configuration.md.`;

function parseArgs(argv: string[]): { positional: string[]; flags: Map<string, string | true> } {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
      const next = argv[i + 1];
      let value: string | true = true;
      if (inline !== undefined) value = inline;
      else if (name !== 'json' && next !== undefined && !next.startsWith('--')) {
        value = next;
        i++;
      }
      const prev = flags.get(name);
      // `--header` may repeat; a header line cannot hold a line break, so one joins them safely.
      if (name === 'header' && typeof prev === 'string' && typeof value === 'string') {
        value = `${prev}\n${value}`;
      }
      flags.set(name, value);
    } else positional.push(arg);
  }
  return { positional, flags };
}

async function withContext<T>(
  config: AppConfig,
  fn: (ctx: INestApplicationContext) => Promise<T>,
): Promise<T> {
  const ctx = await NestFactory.createApplicationContext(CliModule.forRoot(config), { logger: ['error'] });
  try {
    return await fn(ctx);
  } finally {
    await ctx.close();
  }
}

/**
 * Says on stderr when a command is about to create a new database: a CLI run without the
 * service's KBQA_DATA_DIR otherwise answers "no projects" from an empty one, and its keys are
 * refused by the service.
 */
function warnIfNewDataDir(config: AppConfig): void {
  // With KBQA_DATABASE_URL every command works on that PostgreSQL database, not the directory's file.
  if (config.databaseUrl !== undefined || existsSync(config.databaseFile)) return;
  process.stderr.write(
    `kbqa: no database in ${config.dataDir}; creating a new one there. ` +
      'If the service runs with another KBQA_DATA_DIR, set the same value for this command.\n',
  );
}

async function run(argv: string[], config: AppConfig): Promise<Output | undefined> {
  const { positional, flags } = parseArgs(argv);
  const [group, action, arg] = positional;
  if (group === 'help' || flags.has('help') || flags.has('h')) {
    return { text: usage(config), json: { usage: usage(config), data_dir: config.dataDir } };
  }
  // Before the data-directory warning: this command writes one file and opens no database.
  if (group === 'admin' && action === 'token') return adminTokenCommand(config);
  // Reads the directory's SQLite file, which must exist, whatever KBQA_DATABASE_URL says.
  if (group === 'store') return storeCommand(config, action, flags);
  if (group !== 'models') warnIfNewDataDir(config);
  if (group === 'worker') {
    if (!config.redisUrl)
      throw new UsageError('kbqa worker needs REDIS_URL (the in-process queue runs inside the API)');
    const ctx = await NestFactory.createApplicationContext(WorkerModule.forRoot(config));
    ctx.enableShutdownHooks();
    new Logger('kbqa').log('ingestion worker running; Ctrl-C to stop');
    return undefined;
  }
  if (group === 'models' && action === 'pull' && (flags.has('llm') || (arg && isLlmModelName(arg)))) {
    const llm = flags.get('llm');
    const sha256 = flags.get('sha256');
    return pullLlmModelCommand(config, arg ?? (typeof llm === 'string' ? llm : undefined), {
      quiet: flags.has('json'),
      sha256: typeof sha256 === 'string' ? sha256 : undefined,
    });
  }
  if (group === 'models' && action === 'pull') {
    const rerank = flags.get('rerank');
    return pullCommand(
      config,
      arg ?? (typeof rerank === 'string' ? rerank : undefined),
      flags.has('json'),
      rerank !== undefined,
    );
  }
  if (group === 'models' && action === 'list') return listModelsCommand(config);
  if (group === 'models' && action === 'import') {
    const name = flags.get('name');
    const sha256 = flags.get('sha256');
    return importLlmModelCommand(config, arg, {
      name: typeof name === 'string' ? name : undefined,
      sha256: typeof sha256 === 'string' ? sha256 : undefined,
    });
  }
  if (group === 'reindex') {
    const project = flags.get('project');
    const projectId = project === undefined ? undefined : intArg(project, '--project');
    return withContext(config, (ctx) =>
      reindexCommand(config, ctx.get<ChunkStore>(CHUNK_STORE).vectors, projectId, flags.has('json')),
    );
  }
  return withContext(config, async (ctx) => {
    const projects = ctx.get(ProjectsService);
    if (group === 'projects' && action === 'create') {
      if (!arg) throw new UsageError('projects create needs a name');
      const p = await projects.createProject(positional.slice(2).join(' '));
      return {
        text: `created project ${p.id} "${p.name}"`,
        json: projectJson(p),
      };
    }
    if (group === 'projects' && action === 'list') {
      const list = await projects.listProjects();
      return {
        text:
          list
            .map(
              (p) =>
                `${p.id}\t${p.name}\texport ${p.exportEnabled ? 'on' : 'off'}\t` +
                `origins ${describeOrigins(p.allowedOrigins)}\t${p.createdAt}`,
            )
            .join('\n') || 'no projects',
        json: { projects: list.map((p) => ({ ...projectJson(p), created_at: p.createdAt })) },
      };
    }
    if (group === 'projects' && action === 'set') {
      const id = intArg(arg, 'project id');
      const exp = flags.get('export');
      const origins = flags.get('origins');
      if (exp === undefined && origins === undefined) {
        throw new UsageError('projects set needs --export on|off or --origins <origin,…>');
      }
      if (exp !== undefined && exp !== 'on' && exp !== 'off') {
        throw new UsageError('projects set needs --export on|off');
      }
      if (origins === true) {
        throw new UsageError('--origins needs a comma-separated list ("" for none, "*" for any)');
      }
      const said: string[] = [];
      // Origins first: they are validated, so a bad list leaves the export switch untouched too.
      let p = origins === undefined ? undefined : await projects.setAllowedOrigins(id, origins.split(','));
      if (p) said.push(`origins ${describeOrigins(p.allowedOrigins)}`);
      if (exp !== undefined) {
        p = await projects.setExport(id, exp === 'on');
        said.push(`export ${exp}`);
      }
      return { text: `project ${p!.id}: ${said.join(', ')}`, json: projectJson(p!) };
    }
    if (group === 'keys' && action === 'create') {
      const projectId = intArg(flags.get('project'), '--project');
      const kind = flags.get('kind');
      if (kind !== 'server' && kind !== 'anon') {
        throw new UsageError(
          'keys create needs --kind server|anon (server keys ingest and manage sources; anon keys only chat, ' +
            'for use in browsers)',
        );
      }
      const k = await projects.createKey(projectId, kind);
      return {
        text: `${k.key}\n(key ${k.id}, ${k.kind}, project ${k.project_id}; shown once, store it now)`,
        json: k,
      };
    }
    if (group === 'keys' && action === 'list') {
      const projectId = intArg(flags.get('project'), '--project');
      const keys = await projects.listKeys(projectId);
      const rows = keys.map((k) => ({
        id: k.id,
        kind: k.kind,
        prefix: k.prefix,
        created_at: k.createdAt,
        revoked: k.revokedAt !== null,
      }));
      return {
        text:
          rows
            .map((k) => `${k.id}\t${k.kind}\t${k.prefix}…\t${k.revoked ? 'revoked' : 'active'}`)
            .join('\n') || 'no keys',
        json: { keys: rows },
      };
    }
    if (group === 'tasks' && action === 'show') return showTask(ctx, intArg(arg, 'task id'));
    if (group === 'indexes') return indexesCommand(ctx.get(IndexesService), action, arg, flags);
    if (group === 'tools') {
      return toolsCommand(ctx.get(ToolsService), ctx.get(ToolSourcesService), positional.slice(1), flags);
    }
    if (group === 'keys' && action === 'revoke') {
      const k = await projects.revokeKey(intArg(arg, 'key id'));
      return { text: `key ${k.id} revoked`, json: { id: k.id, revoked: true } };
    }
    throw new UsageError(group ? `unknown command: ${positional.join(' ')}` : 'no command given');
  });
}

function projectJson(p: ProjectEntity) {
  return {
    id: p.id,
    name: p.name,
    export_enabled: p.exportEnabled,
    allowed_origins: p.allowedOrigins,
  };
}

function describeOrigins(origins: readonly string[]): string {
  if (origins.length === 0) return 'none';
  return origins.join(',');
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const json = argv.includes('--json');
  let config: AppConfig | undefined;
  try {
    config = loadConfig();
    // The published package's and the binary's one entry point: `kbqa start` is `pnpm start`. Loaded
    // only for `start`, so the other commands do not pay for the whole HTTP application.
    if (argv[0] === 'start') return await (await import('./server.js')).serve(config);
    const out = await run(argv, config);
    if (out) process.stdout.write((json ? JSON.stringify(out.json) : out.text) + '\n');
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (json) process.stdout.write(JSON.stringify({ error: message }) + '\n');
    else
      process.stderr.write(
        `error: ${message}\n${e instanceof UsageError && config ? `\n${usage(config)}\n` : ''}`,
      );
    process.exitCode = e instanceof UsageError ? 2 : 1;
  }
}

void main();
