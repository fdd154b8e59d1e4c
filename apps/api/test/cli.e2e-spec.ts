import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CLI = join(__dirname, '..', 'dist', 'cli.js');

/** Runs the built CLI and returns its exit code and both streams (never throws on a non-zero exit). */
function kbqa(args: string[], env: Record<string, string>, timeout = 0) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, ...env }, timeout },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs `fn` over `items`, a few at a time: each run boots Node, and the machine may have two cores. */
async function inBatches<T>(items: readonly T[], fn: (item: T) => Promise<void>, size = 3): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

/** Every command the help lists, by the words that name it. */
const COMMANDS = [
  'start',
  'projects create',
  'projects list',
  'projects set',
  'keys create',
  'keys list',
  'keys revoke',
  'worker',
  'ingest',
  'tasks show',
  'indexes list',
  'indexes add-folder',
  'indexes show',
  'indexes sync',
  'indexes resync',
  'indexes delete',
  'tools add',
  'tools list',
  'tools remove',
  'tools test',
  'tools import',
  'tools sources add',
  'tools sources list',
  'tools sources tools',
  'tools sources remove',
  'models list',
  'models pull',
  'reindex',
  'store copy',
  'backup',
  'restore',
  'admin token',
];
const GROUPS = ['projects', 'keys', 'tasks', 'indexes', 'tools', 'tools sources', 'models', 'store', 'admin'];

describe('kbqa CLI (e2e, the built command line)', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'kbqa-cli-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('says on stderr when projects create makes a new database, and only then', async () => {
    const env = { KBQA_DATA_DIR: join(root, 'elsewhere') };
    const first = await kbqa(['projects', 'create', 'p', '--json'], env);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`no database in ${join(root, 'elsewhere')}; creating a new one there`);
    expect(first.stderr).toContain('KBQA_DATA_DIR');
    const second = await kbqa(['projects', 'list', '--json'], env);
    expect(second.code).toBe(0);
    expect(second.stderr).not.toContain('creating a new one');
  });

  it('creates no database for a command that only reads or changes records, and says where it looked', async () => {
    const dir = join(root, 'empty');
    const env = { KBQA_DATA_DIR: dir };
    const readers = [
      ['projects', 'list'],
      ['projects', 'set', '1', '--export', 'on'],
      ['keys', 'list', '--project', '1'],
      ['keys', 'revoke', '1'],
      ['tasks', 'show', '1'],
      ['indexes', 'list', '--project', '1'],
      ['tools', 'list', '--project', '1'],
      ['tools', 'sources', 'list', '--project', '1'],
      ['reindex'],
    ];
    await inBatches(readers, async (args) => {
      const res = await kbqa(args, env);
      expect({ args, code: res.code }).toEqual({ args, code: 1 });
      expect(res.stderr).toContain(`no database in ${dir} (looked for ${join(dir, 'kbqa.sqlite')})`);
      expect(res.stderr).toContain('KBQA_DATA_DIR');
      // The next command is named as this CLI is run (the built one of a clone: `pnpm kbqa`).
      expect(res.stderr).toContain('`pnpm kbqa projects create <name>`');
    });
    const json = await kbqa(['projects', 'list', '--json'], env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      error: expect.stringContaining(`no database in ${dir}`),
      code: 'NOT_FOUND',
    });
    expect(existsSync(dir)).toBe(false);
  }, 120_000);

  it('names the data directory in --help', async () => {
    const help = await kbqa(['--help'], { KBQA_DATA_DIR: join(root, 'd') });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(`Data directory: ${join(root, 'd')}`);
  });

  it('requires --kind for keys create instead of making a server key', async () => {
    const env = { KBQA_DATA_DIR: join(root, 'd') };
    const project = JSON.parse((await kbqa(['projects', 'create', 'p', '--json'], env)).stdout);
    const res = await kbqa(['keys', 'create', '--project', String(project.id)], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('keys create needs --kind server|anon');
    const keys = JSON.parse(
      (await kbqa(['keys', 'list', '--project', String(project.id), '--json'], env)).stdout,
    );
    expect(keys).toEqual({ keys: [] });
  });

  it('sets, shows and clears the widget origins of a project, refusing one that is not exact', async () => {
    const env = { KBQA_DATA_DIR: join(root, 'd') };
    const project = JSON.parse((await kbqa(['projects', 'create', 'p', '--json'], env)).stdout);
    const id = String(project.id);
    expect(project.allowed_origins).toEqual([]);
    const set = await kbqa(
      ['projects', 'set', id, '--origins', 'https://docs.example.com/,http://127.0.0.1:8080', '--json'],
      env,
    );
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      id: project.id,
      name: 'p',
      export_enabled: false,
      allowed_origins: ['https://docs.example.com', 'http://127.0.0.1:8080'],
    });
    const listed = await kbqa(['projects', 'list'], env);
    expect(listed.stdout).toContain('origins https://docs.example.com,http://127.0.0.1:8080');

    const bad = await kbqa(
      ['projects', 'set', id, '--origins', 'https://docs.example.com/guide', '--json'],
      env,
    );
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).error).toContain('"https://docs.example.com/guide" is not an exact origin');
    const cleared = await kbqa(['projects', 'set', id, '--origins', '', '--json'], env);
    expect(JSON.parse(cleared.stdout).allowed_origins).toEqual([]);
    const text = await kbqa(['projects', 'set', id, '--origins', '*'], env);
    expect(text.stdout.trim()).toBe(`project ${id}: origins *`);
    const none = await kbqa(['projects', 'set', id], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('projects set needs --export on|off or --origins <origin,…>');
    // Seven runs, each booting the CLI: near the default 30 s on a loaded two-core machine.
  }, 90_000);

  it('prints the help of every command on --help or -h, and runs none of them', async () => {
    const env = { KBQA_DATA_DIR: join(root, 'd'), PORT: '0', HOST: '127.0.0.1' };
    await inBatches(COMMANDS, async (command) => {
      const flag = command.length % 2 === 0 ? '--help' : '-h';
      // `start --help` once started the server; the timeout turns that into a failure, not a hang.
      const res = await kbqa([...command.split(' '), flag], env, 30_000);
      expect({ command, flag, code: res.code, stderr: res.stderr }).toEqual({
        command,
        flag,
        code: 0,
        stderr: '',
      });
      expect(res.stdout).toMatch(new RegExp(`^Usage: pnpm kbqa ${command}[ \\n]`));
      expect(res.stdout).toContain('-h, --help');
    });
    expect(existsSync(join(root, 'd'))).toBe(false);
  }, 180_000);

  it('answers -h, help and help <command> with the help', async () => {
    const env = { KBQA_DATA_DIR: join(root, 'd') };
    const short = await kbqa(['-h'], env);
    expect(short.code).toBe(0);
    expect(short.stdout).toContain('Usage: pnpm kbqa <command>');
    const word = await kbqa(['help', 'keys', 'create'], env);
    expect(word.code).toBe(0);
    expect(word.stdout).toMatch(/^Usage: pnpm kbqa keys create --project <id> --kind server\|anon/);
    const json = await kbqa(['tasks', 'show', '--help', '--json'], env);
    expect(JSON.parse(json.stdout)).toEqual({
      usage: expect.stringMatching(/^Usage: pnpm kbqa tasks show <task-id>/),
      data_dir: join(root, 'd'),
    });
  });

  it('lists the commands of a group named alone', async () => {
    const env = { KBQA_DATA_DIR: join(root, 'd') };
    await inBatches(GROUPS, async (group) => {
      const res = await kbqa(group.split(' '), env);
      expect({ group, code: res.code }).toEqual({ group, code: 0 });
      expect(res.stdout).toContain(`Usage: pnpm kbqa ${group} <command>`);
      for (const command of COMMANDS.filter((c) => c.startsWith(`${group} `))) {
        expect(res.stdout).toContain(`  ${command}`);
      }
    });
  }, 120_000);

  it('refuses an unknown command or option with exit code 2 and the help that applies', async () => {
    const env = { KBQA_DATA_DIR: join(root, 'd') };
    const unknown = await kbqa(['bogus'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: unknown command: bogus\n/);
    const sub = await kbqa(['projects', 'bogus'], env);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('error: unknown command: projects bogus');
    expect(sub.stderr).toContain('Usage: pnpm kbqa projects <command>');
    const option = await kbqa(['projects', 'list', '--bogus', '--json'], env);
    expect(option.code).toBe(2);
    expect(JSON.parse(option.stdout)).toEqual({
      error: expect.stringContaining("'--bogus'"),
      code: 'BAD_REQUEST',
    });
    expect(existsSync(join(root, 'd'))).toBe(false);
  });

  it('prints --json errors in the API shape {error, code}', async () => {
    const env = { KBQA_DATA_DIR: join(root, 'd') };
    await kbqa(['projects', 'create', 'p'], env);
    const missing = await kbqa(['tasks', 'show', '1', '--json'], env);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toEqual({ error: 'task 1 not found', code: 'NOT_FOUND' });
    const usage = await kbqa(['keys', 'create', '--project', '1', '--json'], env);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toEqual({
      error: expect.stringContaining('keys create needs --kind server|anon'),
      code: 'BAD_REQUEST',
    });
  });

  it('prints every timestamp as ISO 8601 UTC with milliseconds and Z', async () => {
    const env = { KBQA_DATA_DIR: join(root, 'd') };
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    const project = JSON.parse((await kbqa(['projects', 'create', 'p', '--json'], env)).stdout);
    await kbqa(['keys', 'create', '--project', String(project.id), '--kind', 'anon'], env);
    const projects = JSON.parse((await kbqa(['projects', 'list', '--json'], env)).stdout);
    expect(projects.projects[0].created_at).toMatch(iso);
    const text = await kbqa(['projects', 'list'], env);
    expect(text.stdout.trim().split('\t').at(-1)).toMatch(iso);
    const keys = JSON.parse(
      (await kbqa(['keys', 'list', '--project', String(project.id), '--json'], env)).stdout,
    );
    expect(keys.keys[0].created_at).toMatch(iso);
  }, 60_000);
});
