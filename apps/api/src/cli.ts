#!/usr/bin/env node
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { type INestApplicationContext, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type ChunkStore, KbqaError, type ProjectRecord, toIsoUtc } from '@kbqa/core';
import { type AppConfig, loadConfig } from './config/config';
import { CliModule, WorkerModule } from './cli.module';
import { CHUNK_STORE } from './database/database.module';
import { adminTokenCommand } from './cli-admin';
import { restoreBackup, takeBackup } from './backup/backup';
import { importLlmModelCommand, isLlmModelName, pullLlmModelCommand } from './cli-llm-models';
import { listModelsCommand, pullCommand, reindexCommand } from './cli-models';
import { showTask } from './cli-tasks';
import { ingestFilesCommand } from './cli-ingest';
import { stopOnSignals } from './stop-on-signals';
import { addFolderCommand, indexesCommand } from './cli-indexes';
import { storeCommand } from './cli-store';
import { toolsCommand } from './cli-tools';
import { registerDiscordCommand } from './cli-integrations';
import { IntegrationsService } from './integrations/integrations.service';
import {
  commandHelp,
  commandLines,
  type CommandSpec,
  groupHelp,
  intArg,
  resolveCommand,
  UsageError,
} from './cli-args';
import { IndexesService } from './indexes/indexes.service';
import { ProjectsService } from './projects/projects.service';
import { ToolSourcesService } from './tools/tool-sources.service';
import { ToolsService } from './tools/tools.service';

/** What a command prints: a line for people, and the one JSON object of --json. */
interface Output {
  text: string;
  json: unknown;
}

interface Invocation {
  config: AppConfig;
  positionals: string[];
  flags: Map<string, string | true>;
  json: boolean;
}

interface Command extends CommandSpec<(inv: Invocation) => Promise<Output | undefined> | Output> {
  /**
   * What the command does with the database: `existing` needs one and never makes one (a command
   * that reads or changes records has nothing to do in an empty data directory), `create` may make
   * the first one, `own` leaves it to the command (the server, a file of its own, no database).
   */
  database: 'existing' | 'create' | 'own';
}

const ID = { min: 1, max: 1 };
const project = { project: { type: 'string' } } as const;
const header = { header: { type: 'string', multiple: true } } as const;

/** Every command, in the order the help lists them. */
const COMMANDS: readonly Command[] = [
  {
    path: ['start'],
    summary: ['serve the API on PORT (3000) with ingestion workers'],
    database: 'own',
    // Loaded only here, so the other commands do not pay for the whole HTTP application.
    run: async ({ config }) => (await import('./server.js')).serve(config).then(() => undefined),
  },
  {
    path: ['projects', 'create'],
    args: '<name>',
    summary: ['create a project'],
    positionals: { min: 1, max: Infinity },
    database: 'create',
    run: (inv) =>
      withProjects(inv, async (projects) => {
        const p = await projects.createProject(inv.positionals.join(' '));
        return { text: `created project ${p.id} "${p.name}"`, json: projectJson(p) };
      }),
  },
  {
    path: ['projects', 'list'],
    summary: ['list projects'],
    database: 'existing',
    run: (inv) =>
      withProjects(inv, async (projects) => {
        const list = await projects.listProjects();
        return {
          text:
            list
              .map(
                (p) =>
                  `${p.id}\t${p.name}\texport ${p.exportEnabled ? 'on' : 'off'}\t` +
                  `origins ${describeOrigins(p.allowedOrigins)}\t${toIsoUtc(p.createdAt)}`,
              )
              .join('\n') || 'no projects',
          json: { projects: list.map((p) => ({ ...projectJson(p), created_at: toIsoUtc(p.createdAt) })) },
        };
      }),
  },
  {
    path: ['projects', 'set'],
    args: '<id> [--export on|off] [--origins <origin,…>]',
    summary: [
      '--export: switch message export (getMessagesData);',
      '--origins: origins whose pages may embed the widget (anon key),',
      'e.g. https://docs.example.com,https://example.com; "*" for any, "" for none',
    ],
    options: { export: { type: 'string' }, origins: { type: 'string' } },
    positionals: ID,
    database: 'existing',
    run: (inv) => withProjects(inv, (projects) => setProject(projects, inv)),
  },
  {
    path: ['keys', 'create'],
    args: '--project <id> --kind server|anon',
    summary: ['create an API key (shown once)'],
    options: { ...project, kind: { type: 'string' } },
    database: 'existing',
    run: (inv) =>
      withProjects(inv, async (projects) => {
        const projectId = intArg(inv.flags.get('project'), '--project');
        const kind = inv.flags.get('kind');
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
      }),
  },
  {
    path: ['keys', 'list'],
    args: '--project <id>',
    summary: ["list a project's keys (never the secret)"],
    options: project,
    database: 'existing',
    run: (inv) =>
      withProjects(inv, async (projects) => {
        const keys = await projects.listKeys(intArg(inv.flags.get('project'), '--project'));
        const rows = keys.map((k) => ({
          id: k.id,
          kind: k.kind,
          prefix: k.prefix,
          created_at: toIsoUtc(k.createdAt),
          revoked: k.revokedAt !== null,
        }));
        return {
          text:
            rows
              .map((k) => `${k.id}\t${k.kind}\t${k.prefix}…\t${k.revoked ? 'revoked' : 'active'}`)
              .join('\n') || 'no keys',
          json: { keys: rows },
        };
      }),
  },
  {
    path: ['keys', 'revoke'],
    args: '<key-id>',
    summary: ['revoke a key'],
    positionals: ID,
    database: 'existing',
    run: (inv) =>
      withProjects(inv, async (projects) => {
        const k = await projects.revokeKey(intArg(inv.positionals[0], 'key id'));
        return { text: `key ${k.id} revoked`, json: { id: k.id, revoked: true } };
      }),
  },
  {
    path: ['worker'],
    summary: ['run ingestion workers only (needs REDIS_URL)'],
    database: 'create',
    run: async ({ config }) => {
      if (!config.redisUrl)
        throw new UsageError(
          `${config.command} worker needs REDIS_URL (the in-process queue runs inside the API)`,
        );
      const ctx = await NestFactory.createApplicationContext(WorkerModule.forRoot(config));
      const logger = new Logger('kbqa');
      // Closing the context stops the queue: a running task is aborted and left pending, and the
      // next worker to start (or the reconciliation of one still running) takes it up again.
      stopOnSignals(logger, () =>
        ctx.close().then(() => '; a running ingestion task is pending again, for the next worker'),
      );
      logger.log('ingestion worker running; Ctrl-C to stop');
      return undefined;
    },
  },
  {
    path: ['ingest'],
    args: '--project <id> [--metadata <json>] <file or folder>…',
    summary: [
      'ingest files (PDF, Word .docx, Markdown, HTML, text) as ingestFiles does; a folder gives its',
      'readable files, named <folder>/<path>; the same name again replaces that source',
    ],
    options: { ...project, metadata: { type: 'string' } },
    positionals: { min: 1, max: Infinity },
    database: 'existing',
    run: ({ config, positionals, flags }) =>
      withContext(config, (ctx) =>
        ingestFilesCommand(
          ctx,
          config,
          intArg(flags.get('project'), '--project'),
          positionals,
          metadataFlag(flags.get('metadata')),
        ),
      ),
  },
  {
    path: ['tasks', 'show'],
    args: '<task-id>',
    summary: ['what an ingestion task did: every URL indexed or skipped, and why'],
    positionals: ID,
    database: 'existing',
    run: ({ config, positionals }) =>
      withContext(config, (ctx) => showTask(ctx, intArg(positionals[0], 'task id'))),
  },
  ...indexCommand('list', '--project <id>', [
    "a project's indexes (one per ingestData root): pages, auto sync, last sync",
  ]),
  {
    path: ['indexes', 'add-folder'],
    args: '--project <id> <path>',
    summary: [
      'watch a folder of this server: its PDF, Word, Markdown, HTML and',
      'text files are ingested, then kept in step as they change; the',
      'path must resolve under KBQA_FOLDER_ROOTS (docs/api.md)',
    ],
    options: project,
    positionals: ID,
    database: 'existing',
    run: ({ config, positionals, flags }) =>
      withContext(config, async (ctx) => {
        const projectId = intArg(flags.get('project'), '--project');
        await ctx.get(ProjectsService).getProject(projectId);
        return addFolderCommand(ctx.get(IndexesService), projectId, positionals[0] ?? '', config.command);
      }),
  },
  ...indexCommand('show', '<index-id>', ['one index']),
  ...indexCommand('sync', '<index-id> --on|--off', [
    'switch auto sync (every KBQA_SYNC_INTERVAL, default 24h)',
  ]),
  ...indexCommand('resync', '<index-id>', ['sync an index now (only what changed is fetched and embedded)']),
  ...indexCommand('delete', '<index-id>', ['delete an index with every page it brought in']),
  ...toolCommand(['add'], '--project <id> --file <tool.json>', [
    'add an HTTP tool (docs/api.md, "Tools"); header values are',
    'secrets, shown as •••• from then on',
  ]),
  ...toolCommand(['list'], '--project <id>', ["a project's tools"]),
  ...toolCommand(['remove'], '<tool-id>', ['delete a tool']),
  ...toolCommand(['test'], "<tool-id> --args '<json>'", [
    'call a tool with these arguments and print its output',
  ]),
  ...toolCommand(
    ['import'],
    "--project <id> --openapi <file-or-url> [--header 'Name: value']… [--public] [--operations id,id…]",
    [
      'one tool per operation of an OpenAPI 3 document (JSON or',
      'YAML); prints what was created and what was skipped, and why',
    ],
  ),
  ...toolCommand(
    ['sources', 'add'],
    "--project <id> --mcp <url> [--header 'Name: value']… [--public] [--name <name>]",
    ['add an MCP server (Streamable HTTP) whose tools chats may call'],
  ),
  ...toolCommand(['sources', 'list'], '--project <id>', ["a project's tool sources"]),
  ...toolCommand(['sources', 'tools'], '<source-id>', ["the source's tools, listed live from its server"]),
  ...toolCommand(['sources', 'remove'], '<source-id>', ['remove a tool source']),
  {
    path: ['integrations', 'discord', 'register'],
    args: '--project <id>',
    summary: [
      "register the /ask slash command of the project's Discord application",
      '(configured with PUT /admin/v1/projects/:id/integrations/discord)',
    ],
    options: project,
    database: 'existing',
    run: ({ config, flags }) =>
      withContext(config, (ctx) =>
        registerDiscordCommand(
          config,
          ctx.get(IntegrationsService),
          intArg(flags.get('project'), '--project'),
        ),
      ),
  },
  {
    path: ['models', 'list'],
    summary: [
      'configured and known models: dimensions, prefixes, cached or not;',
      'local chat models (KBQA_LLM=local): size, context, licence, RAM',
    ],
    database: 'own',
    run: ({ config }) => listModelsCommand(config),
  },
  {
    path: ['models', 'import'],
    args: '<file.gguf> [--name <name>] [--sha256 <hex>]',
    summary: [
      'install a GGUF chat model copied here by hand (checked: GGUF, complete,',
      'a chat architecture, the sha256 when known)',
    ],
    options: { name: { type: 'string' }, sha256: { type: 'string' } },
    positionals: { min: 1, max: 1 },
    database: 'own',
    run: ({ config, positionals, flags }) =>
      importLlmModelCommand(config, positionals[0], {
        name: stringFlag(flags, 'name'),
        sha256: stringFlag(flags, 'sha256'),
      }),
  },
  {
    path: ['models', 'pull'],
    args: '[id] [--rerank] | <chat-model> | --llm [--sha256 <hex>]',
    summary: [
      'download a model (default KBQA_EMBED_MODEL and KBQA_RERANK_MODEL); a chat model of the',
      'list, or KBQA_LLM_MODEL with --llm, for KBQA_LLM=local: with progress, resumed, sha256 and',
      'GGUF checked',
    ],
    options: { rerank: { type: 'boolean' }, llm: { type: 'boolean' }, sha256: { type: 'string' } },
    positionals: { min: 0, max: 1 },
    database: 'own',
    run: ({ config, positionals, flags, json }) => {
      const [id] = positionals;
      if (flags.has('llm') || (id !== undefined && isLlmModelName(id))) {
        return pullLlmModelCommand(config, id, { quiet: json, sha256: stringFlag(flags, 'sha256') });
      }
      return pullCommand(config, id, json, flags.has('rerank'));
    },
  },
  {
    path: ['reindex'],
    args: '[--project <id>]',
    summary: [
      'embed chunks that have no vector yet, with progress;',
      'after a model change, re-embeds every project',
    ],
    options: project,
    database: 'existing',
    run: ({ config, flags, json }) => {
      const p = flags.get('project');
      const projectId = p === undefined ? undefined : intArg(p, '--project');
      return withContext(config, (ctx) =>
        reindexCommand(config, ctx.get<ChunkStore>(CHUNK_STORE).vectors, projectId, json),
      );
    },
  },
  {
    path: ['store', 'copy'],
    args: '--to <postgres-url>',
    summary: [
      "copy this data directory's SQLite deployment (projects, keys,",
      'sources, chunks, conversations, vectors…) into an empty',
      'PostgreSQL database, ids kept; then run with KBQA_DATABASE_URL',
      '(docs/postgres.md)',
    ],
    options: { to: { type: 'string' } },
    // Reads the directory's SQLite file, which must exist, whatever KBQA_DATABASE_URL says.
    database: 'own',
    run: ({ config, flags }) => storeCommand(config, 'copy', flags),
  },
  {
    path: ['backup'],
    args: '<file>',
    summary: [
      'copy the SQLite deployment (records, sources, chunks, index, vectors, the tool',
      'key and admin token files) into one file, consistently, while the service runs;',
      'KBQA_BACKUP_INTERVAL schedules them (docs/deploy.md)',
    ],
    positionals: { min: 1, max: 1 },
    // Reads the directory's SQLite file through a connection of its own, never creating one.
    database: 'own',
    run: async ({ config, positionals }) => {
      const r = await takeBackup(config, positionals[0]!);
      return {
        text: `backup of ${config.dataDir} written to ${r.file} (${r.bytes} bytes${r.files.length ? `, with ${r.files.join(', ')}` : ''})`,
        json: { file: r.file, bytes: r.bytes, created_at: r.createdAt, files: r.files },
      };
    },
  },
  {
    path: ['restore'],
    args: '<file>',
    summary: [
      'bring a backup back into an empty data directory (KBQA_DATA_DIR); refused when',
      'the directory holds data or the backup is of a newer kbqa',
    ],
    positionals: { min: 1, max: 1 },
    database: 'own',
    run: ({ config, positionals }) => {
      const r = restoreBackup(config, positionals[0]!);
      return {
        text:
          `restored ${r.file} (kbqa ${r.version}, taken ${r.createdAt}) into ${r.dataDir}` +
          (r.pendingMigrations > 0
            ? `; ${r.pendingMigrations} migration(s) run when the service starts`
            : '') +
          `\nStart the service with KBQA_DATA_DIR=${r.dataDir}.`,
        json: {
          file: r.file,
          data_dir: r.dataDir,
          version: r.version,
          created_at: r.createdAt,
          files: r.files,
          pending_migrations: r.pendingMigrations,
        },
      };
    },
  },
  {
    path: ['admin', 'token'],
    summary: [
      'new operator token for /admin/v1 (shown once; replaces',
      'the previous one; not with KBQA_ADMIN_TOKEN set)',
    ],
    // Writes one file and opens no database.
    database: 'own',
    run: ({ config }) => adminTokenCommand(config),
  },
];

function indexCommand(action: string, args: string, summary: string[]): Command[] {
  return [
    {
      path: ['indexes', action],
      args,
      summary,
      options:
        action === 'list'
          ? project
          : action === 'sync'
            ? { on: { type: 'boolean' }, off: { type: 'boolean' } }
            : {},
      positionals: action === 'list' ? undefined : ID,
      database: 'existing',
      run: ({ config, positionals, flags }) =>
        withContext(config, (ctx) =>
          indexesCommand(ctx.get(IndexesService), action, positionals[0], flags, config.command),
        ),
    },
  ];
}

function toolCommand(words: string[], args: string, summary: string[]): Command[] {
  const takesId = args.startsWith('<');
  return [
    {
      path: ['tools', ...words],
      args,
      summary,
      options: {
        ...(takesId ? {} : project),
        ...(args.includes('--file') ? { file: { type: 'string' } } : {}),
        ...(args.includes('--args') ? { args: { type: 'string' } } : {}),
        ...(args.includes('--openapi')
          ? { openapi: { type: 'string' }, operations: { type: 'string' } }
          : {}),
        ...(args.includes('--mcp') ? { mcp: { type: 'string' }, name: { type: 'string' } } : {}),
        ...(args.includes('--header') ? { ...header, public: { type: 'boolean' } } : {}),
      },
      positionals: takesId ? ID : undefined,
      database: 'existing',
      run: ({ config, positionals, flags }) =>
        withContext(config, (ctx) =>
          toolsCommand(ctx.get(ToolsService), ctx.get(ToolSourcesService), [...words, ...positionals], flags),
        ),
    },
  ];
}

function usage(config: AppConfig): string {
  return `Usage: ${config.command} <command> [--json]

${COMMANDS.flatMap(commandLines).join('\n')}

\`${config.command} <command> --help\` (or -h) shows one command's help; a group alone (\`${config.command} tools\`) lists its commands.

${dataDirNote(config)}
Environment: KBQA_DATA_DIR, KBQA_DATABASE_URL (PostgreSQL instead of the directory's SQLite file), REDIS_URL,
  KBQA_ADMIN_TOKEN, see docs/configuration.md.`;
}

function dataDirNote(config: AppConfig): string {
  return `Data directory: ${config.dataDir}
  (KBQA_DATA_DIR, default ./data in the current directory: run every command with the same value as
  the service, or they work on different databases)`;
}

/** The help `path` asks for: every command, one group's, or one command's. */
function help(config: AppConfig, path: readonly string[]): string {
  if (path.length === 0) return usage(config);
  const command = COMMANDS.find((c) => c.path.join(' ') === path.join(' '));
  const program = config.command;
  return `${command ? commandHelp(command, program) : groupHelp(COMMANDS, path, program)}\n\n${dataDirNote(config)}`;
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
 * service's KBQA_DATA_DIR otherwise works on a database the service never sees, and its keys are
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

/**
 * Refuses a command that reads or changes records when there is no database: opening one would
 * create an empty database in what is most likely the wrong directory, and answer "no projects".
 */
function requireDatabase(config: AppConfig): void {
  if (config.databaseUrl !== undefined || existsSync(config.databaseFile)) return;
  throw new KbqaError(
    'NOT_FOUND',
    `no database in ${config.dataDir} (looked for ${config.databaseFile}). Set KBQA_DATA_DIR to the ` +
      `service's data directory, or create the first project with \`${config.command} projects create <name>\`.`,
  );
}

function metadataFlag(value: string | true | undefined): string | undefined {
  if (value === true)
    throw new UsageError('--metadata needs a JSON object, e.g. --metadata \'{"team":"support"}\'');
  return value;
}

function withProjects(inv: Invocation, fn: (projects: ProjectsService) => Promise<Output>): Promise<Output> {
  return withContext(inv.config, (ctx) => fn(ctx.get(ProjectsService)));
}

async function setProject(projects: ProjectsService, { positionals, flags }: Invocation): Promise<Output> {
  const id = intArg(positionals[0], 'project id');
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

function projectJson(p: ProjectRecord) {
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
  // The command's help goes with a usage error its handler raised without naming one.
  let commandPath: readonly string[] = [];
  try {
    config = loadConfig();
    const found = resolveCommand(COMMANDS, argv);
    if (found.kind === 'help') {
      const text = help(config, found.path);
      process.stdout.write((json ? JSON.stringify({ usage: text, data_dir: config.dataDir }) : text) + '\n');
      return;
    }
    const { command, positionals, flags } = found;
    commandPath = command.path;
    if (command.database === 'existing') requireDatabase(config);
    if (command.database === 'create') warnIfNewDataDir(config);
    const out = await command.run({ config, positionals, flags, json });
    if (out) process.stdout.write((json ? JSON.stringify(out.json) : out.text) + '\n');
  } catch (e) {
    // The API's error shape (toErrorBody): the message and its KbqaError code.
    const { message, code } = KbqaError.from(e);
    if (json) process.stdout.write(JSON.stringify({ error: message, code }) + '\n');
    else
      process.stderr.write(
        `error: ${message}\n${e instanceof UsageError && config ? `\n${help(config, e.path.length ? e.path : commandPath)}\n` : ''}`,
      );
    process.exitCode = e instanceof UsageError ? 2 : 1;
  }
}

void main();

/** A string option's value, or undefined when it was not given. */
function stringFlag(flags: Map<string, string | true>, name: string): string | undefined {
  const value = flags.get(name);
  return typeof value === 'string' ? value : undefined;
}
