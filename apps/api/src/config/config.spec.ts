import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KbqaError } from '@kbqa/core';
import { commandName, loadConfig } from './config';

describe(loadConfig.name, () => {
  const refusal = (env: Record<string, string>): KbqaError => {
    try {
      loadConfig(env, '/tmp');
    } catch (e) {
      if (e instanceof KbqaError) return e;
      throw e;
    }
    throw new Error('expected the configuration to be refused');
  };

  it.each([
    [{ KBQA_QUEUE_CONCURRENCY: 'many' }, 'KBQA_QUEUE_CONCURRENCY must be an integer'],
    [{ KBQA_WORKER: 'perhaps' }, 'KBQA_WORKER must be true or false'],
    [{ KBQA_LLM: 'gpt' }, 'KBQA_LLM must be "extractive", "openai" or "local"'],
    [{ KBQA_LLM: 'openai' }, 'KBQA_LLM=openai needs KBQA_LLM_BASE_URL'],
    [{ KBQA_LLM: 'local', KBQA_LLM_MODEL: '../etc/passwd' }, 'KBQA_LLM_MODEL must be a model name'],
    [
      { KBQA_LLM: 'local', KBQA_LLM_CONTEXT_TOKENS: '10' },
      'KBQA_LLM_CONTEXT_TOKENS must be an integer from 50',
    ],
    [{ KBQA_ADMIN_TOKEN: 'short' }, 'KBQA_ADMIN_TOKEN must be at least 16 characters'],
    [{ KBQA_TOOL_MAX_ROUNDS: '11' }, 'KBQA_TOOL_MAX_ROUNDS must be an integer from 0 to 10'],
    [{ KBQA_TOOL_MAX_ROUNDS: '1.5' }, 'KBQA_TOOL_MAX_ROUNDS must be an integer'],
    [{ KBQA_ADMIN_TOKEN: 'sixteen chars plus' }, 'without spaces'],
    [{ KBQA_RERANK_TOP: '0' }, 'KBQA_RERANK_TOP must be an integer from 1'],
    [{ KBQA_RERANK_BUDGET_MS: 'soon' }, 'KBQA_RERANK_BUDGET_MS must be an integer'],
    [{ KBQA_DATABASE_URL: 'mysql://db/kbqa' }, 'KBQA_DATABASE_URL must be a PostgreSQL URL'],
    [{ KBQA_DATABASE_URL: 'kbqa.sqlite' }, 'KBQA_DATABASE_URL must be a PostgreSQL URL'],
    [
      { KBQA_CHUNK_SIZE: '400', KBQA_CHUNK_OVERLAP: '300' },
      'KBQA_CHUNK_OVERLAP must be an integer from 0 to 200, got "300"',
    ],
    [{ KBQA_SYNC_INTERVAL: 'weekly' }, 'KBQA_SYNC_INTERVAL must be a duration of at least 1000 ms'],
    [{ KBQA_SLACK_API_URL: 'ftp://x' }, 'KBQA_SLACK_API_URL must be an http(s) URL'],
  ])('refuses a bad setting with CONFIG_INVALID, not an HTTP code: %j', (env, message) => {
    const error = refusal(env);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(message);
  });

  it('names every bad variable in one refusal', () => {
    const { message } = refusal({ PORT: 'x', KBQA_WORKER: 'perhaps', KBQA_LLM: 'gpt' });
    expect(message).toContain('PORT must be an integer from 0 to 65535, got "x"');
    expect(message).toContain('KBQA_WORKER must be true or false, got "perhaps"');
    expect(message).toContain('KBQA_LLM must be "extractive", "openai" or "local", got "gpt"');
  });

  it("checks only the chosen answer generator's variables", () => {
    expect(loadConfig({ KBQA_LLM_CONTEXT_TOKENS: '10' }, '/tmp').llm).toEqual({ kind: 'extractive' });
    expect(refusal({ KBQA_LLM: 'local', KBQA_LLM_THREADS: '0' }).message).toContain(
      'KBQA_LLM_THREADS must be an integer from 1 to 256',
    );
  });

  it('logs at info unless KBQA_LOG_LEVEL says otherwise, and refuses an unknown level', () => {
    expect(loadConfig({}, '/tmp').logLevel).toBe('info');
    expect(loadConfig({ KBQA_LOG_LEVEL: 'DEBUG' }, '/tmp').logLevel).toBe('debug');
    expect(refusal({ KBQA_LOG_LEVEL: 'loud' }).message).toMatch(/KBQA_LOG_LEVEL must be one of error, warn/);
  });

  it('finds a local model in the models folder unless KBQA_LLM_MODEL_FILE names the file', () => {
    expect(loadConfig({ KBQA_LLM: 'local', KBQA_DATA_DIR: '/d' }, '/tmp').llm).toEqual({
      kind: 'local',
      model: 'qwen3-0.6b',
      modelFile: '/d/models/llm/qwen3-0.6b.gguf',
      contextTokens: 750,
      maxTokens: 512,
      sequences: undefined,
      maxQueue: 8,
      threads: undefined,
    });
    const named = loadConfig(
      { KBQA_LLM: 'local', KBQA_LLM_MODEL: 'mine', KBQA_MODELS_DIR: '/m' },
      '/tmp',
    ).llm;
    expect(named).toMatchObject({ model: 'mine', modelFile: '/m/llm/mine.gguf' });
    const file = loadConfig(
      { KBQA_LLM: 'local', KBQA_LLM_MODEL_FILE: 'x.gguf', KBQA_LLM_THREADS: '2' },
      '/w',
    ).llm;
    expect(file).toMatchObject({ modelFile: '/w/x.gguf', threads: 2 });
    expect(loadConfig({ KBQA_LLM: 'local', KBQA_LLM_SEQUENCES: '3' }, '/w').llm).toMatchObject({
      sequences: 3,
    });
    expect(loadConfig({ KBQA_LLM: 'local', KBQA_LLM_SEQUENCES: 'auto' }, '/w').llm).toMatchObject({
      sequences: undefined,
    });
  });

  it('uses SQLite unless KBQA_DATABASE_URL names a PostgreSQL database', () => {
    expect(loadConfig({}, '/tmp').databaseUrl).toBeUndefined();
    expect(loadConfig({ KBQA_DATABASE_URL: 'postgres://kbqa@db:5432/kbqa' }, '/tmp').databaseUrl).toBe(
      'postgres://kbqa@db:5432/kbqa',
    );
    expect(loadConfig({ KBQA_DATABASE_URL: 'postgresql://db/kbqa' }, '/tmp').databaseUrl).toBe(
      'postgresql://db/kbqa',
    );
  });

  it('allows 3 rounds of tool calls unless KBQA_TOOL_MAX_ROUNDS says otherwise (0: no tools)', () => {
    expect(loadConfig({}, '/tmp').tools.maxRounds).toBe(3);
    expect(loadConfig({ KBQA_TOOL_MAX_ROUNDS: '0' }, '/tmp').tools.maxRounds).toBe(0);
    expect(loadConfig({ KBQA_TOOL_MAX_ROUNDS: '10' }, '/tmp').tools.maxRounds).toBe(10);
  });

  it('schedules no backups unless KBQA_BACKUP_INTERVAL is a duration, and keeps 7 unless told', () => {
    expect(loadConfig({}, '/tmp').backup).toEqual({ intervalMs: undefined, keep: 7 });
    expect(loadConfig({ KBQA_BACKUP_INTERVAL: 'off' }, '/tmp').backup.intervalMs).toBeUndefined();
    expect(loadConfig({ KBQA_BACKUP_INTERVAL: '6h', KBQA_BACKUP_KEEP: '3' }, '/tmp').backup).toEqual({
      intervalMs: 6 * 3_600_000,
      keep: 3,
    });
    expect(() => loadConfig({ KBQA_BACKUP_INTERVAL: 'daily' }, '/tmp')).toThrow(
      /KBQA_BACKUP_INTERVAL must be a duration/,
    );
    expect(() => loadConfig({ KBQA_BACKUP_KEEP: '0' }, '/tmp')).toThrow(
      /KBQA_BACKUP_KEEP must be an integer/,
    );
  });

  it('allows no watched folder unless KBQA_FOLDER_ROOTS lists absolute paths, comma-separated', () => {
    expect(loadConfig({}, '/tmp').folders).toEqual({ roots: [], rescanIntervalMs: 600_000 });
    expect(
      loadConfig({ KBQA_FOLDER_ROOTS: '/srv/docs/, /mnt/share', KBQA_FOLDER_RESCAN_INTERVAL: '30s' }, '/tmp')
        .folders,
    ).toEqual({ roots: ['/srv/docs', '/mnt/share'], rescanIntervalMs: 30_000 });
    expect(() => loadConfig({ KBQA_FOLDER_ROOTS: '/srv/docs,docs' }, '/tmp')).toThrow(
      'KBQA_FOLDER_ROOTS must list absolute paths, comma-separated; got "docs"',
    );
  });

  it("reports the service's own package version", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(loadConfig({}, '/tmp').version).toBe(pkg.version);
    expect(loadConfig({ KBQA_VERSION_OVERRIDE: '9.9.9' }, '/tmp').version).toBe('9.9.9');
  });

  it('defaults to snowflake-arctic-embed-xs with reranking off, top 20 and a 300 ms budget', () => {
    const { embedding } = loadConfig({}, '/tmp');
    expect(embedding.model).toBe('Snowflake/snowflake-arctic-embed-xs');
    expect(embedding.rerank).toEqual({ model: undefined, top: 20, budgetMs: 300 });
    expect(loadConfig({ KBQA_RERANK_MODEL: 'none' }, '/tmp').embedding.rerank.model).toBeUndefined();
    expect(
      loadConfig({ KBQA_RERANK_MODEL: 'Xenova/ms-marco-MiniLM-L-6-v2', KBQA_RERANK_TOP: '10' }, '/tmp')
        .embedding.rerank,
    ).toEqual({ model: 'Xenova/ms-marco-MiniLM-L-6-v2', top: 10, budgetMs: 300 });
  });
});

describe(commandName.name, () => {
  const node = (script: string) => ({
    argv: ['/usr/bin/node', script],
    execPath: '/usr/bin/node',
    sea: false,
  });
  const sea = (execPath: string) => ({ argv: [execPath, execPath], execPath, sea: true });

  it('names the binary as the user can call it from the current folder', () => {
    expect(commandName(sea('/opt/kbqa/kbqa-linux-x64'), '/opt/kbqa')).toBe('./kbqa-linux-x64');
    expect(commandName(sea('/opt/kbqa/bin/kbqa-linux-x64'), '/opt/kbqa')).toBe('./bin/kbqa-linux-x64');
    expect(commandName(sea('/opt/kbqa/kbqa-linux-x64'), '/home/me')).toBe('/opt/kbqa/kbqa-linux-x64');
  });

  it('says kbqa for an installed package and pnpm kbqa in a clone', () => {
    expect(commandName(node('/app/node_modules/kbqa/dist/cli.js'), '/app')).toBe('kbqa');
    expect(commandName(node('/src/kbqa/apps/api/dist/main.js'), '/src/kbqa')).toBe('pnpm kbqa');
  });
});
