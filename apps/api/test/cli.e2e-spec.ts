import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CLI = join(__dirname, '..', 'dist', 'cli.js');

/** Runs the built CLI and returns its exit code and both streams (never throws on a non-zero exit). */
function kbqa(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('kbqa CLI (e2e, the built command line)', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'kbqa-cli-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('says on stderr when it creates a new data directory, and only then', async () => {
    const env = { KBQA_DATA_DIR: join(root, 'elsewhere') };
    const first = await kbqa(['projects', 'list', '--json'], env);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ projects: [] });
    expect(first.stderr).toContain(`no database in ${join(root, 'elsewhere')}; creating a new one there`);
    expect(first.stderr).toContain('KBQA_DATA_DIR');
    const second = await kbqa(['projects', 'list', '--json'], env);
    expect(second.stderr).not.toContain('creating a new one');
  });

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
  });
});
