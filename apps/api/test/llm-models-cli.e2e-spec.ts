import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTinyGguf } from '@kbqa/llm-local/testing';

const CLI = join(__dirname, '..', 'dist', 'cli.js');

// A guard against hangs, not a speed check: each test starts the CLI up to four times, and one
// start took over ten seconds on the shared two-core host under load.
jest.setTimeout(180_000);

/** Runs the built CLI and returns its exit code and both streams (never throws on a non-zero exit). */
function kbqa(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('kbqa models import and list for local chat models (e2e, the built command line)', () => {
  let root: string;
  let model: string;
  let env: Record<string, string>;
  const installed = (name: string) => join(root, 'data', 'models', 'llm', `${name}.gguf`);

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'kbqa-llm-cli-'));
    model = await writeTinyGguf(join(root, 'copied'));
    env = { KBQA_DATA_DIR: join(root, 'data'), KBQA_LLM: 'local', KBQA_LLM_MODEL: 'tiny' };
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('installs a GGUF file under its name and lists it as the configured model', async () => {
    const digest = createHash('sha256').update(readFileSync(model)).digest('hex');
    const out = await kbqa(['models', 'import', model, '--name', 'tiny', '--json'], env);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({
      model: 'tiny',
      file: installed('tiny'),
      architecture: 'llama',
      size_bytes: readFileSync(model).length,
      context_tokens: 512,
      sha256_checked: false,
      sha256: digest,
    });
    expect(readFileSync(installed('tiny')).equals(readFileSync(model))).toBe(true);
    const list = JSON.parse((await kbqa(['models', 'list', '--json'], env)).stdout);
    expect(list.llm.configured).toBe('tiny');
    expect(list.llm.models).toContainEqual({
      model: 'tiny',
      file_bytes: readFileSync(model).length,
      installed: true,
      configured: true,
    });
    expect(list.llm.models).toContainEqual(
      expect.objectContaining({
        model: 'qwen2.5-0.5b-instruct',
        context_tokens: 32768,
        licence: 'Apache-2.0',
        installed: false,
        file_bytes: 491_400_032,
        sha256: '74a4da8c9fdbcd15bd1f6d01d621410d31c6fc00986f5eb687824e7b93d7a9db',
        ram_bytes_estimate: expect.any(Number),
        quality: {
          hallucination_rate_pct: 25.2,
          factual_consistency_pct: 74.8,
          answer_rate_pct: 100,
          source_url: expect.stringMatching(
            /^https:\/\/github\.com\/vectara\/hallucination-leaderboard\/blob\/[0-9a-f]{40}\/README\.md$/,
          ),
          source_date: '2025-10-16',
        },
      }),
    );
    // A model the leaderboard does not list has no figure rather than a guessed one.
    expect(list.llm.models).toContainEqual(
      expect.objectContaining({ model: 'smollm2-1.7b-instruct', quality: null }),
    );
    const text = (await kbqa(['models', 'list'], env)).stdout;
    expect(text).toMatch(/Local chat models \(KBQA_LLM=local\)/);
    expect(text).toMatch(/tiny .* installed, configured/);
    expect(text).toMatch(
      /qwen3-0\.6b \(default\)\s+0\.6B\s+396\.7 MB\s+32768\s+Apache-2\.0\s+[\d.]+ GB\s+3\.7 %/,
    );
    expect(text).toMatch(/smollm2-1\.7b-instruct .* not listed/);
    expect(text).toContain('hallucination-leaderboard/blob/');
  });

  it('says when no known digest could check an imported file, and prints its sha256 to compare', async () => {
    const digest = createHash('sha256').update(readFileSync(model)).digest('hex');
    const out = await kbqa(['models', 'import', model, '--name', 'unchecked'], env);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('could not be checked against a known digest');
    expect(out.stdout).toContain(`its sha256 is ${digest}`);
  });

  it('checks the sha256 when one is given', async () => {
    const sha256 = createHash('sha256').update(readFileSync(model)).digest('hex');
    const ok = await kbqa(
      ['models', 'import', model, '--name', 'checked', '--sha256', sha256, '--json'],
      env,
    );
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ sha256_checked: true, sha256 });

    const wrong = '0'.repeat(64);
    const refused = await kbqa(['models', 'import', model, '--name', 'mismatch', '--sha256', wrong], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`has sha256 ${sha256}, not the expected ${wrong}`);
    expect(existsSync(installed('mismatch'))).toBe(false);
  });

  it('refuses a file that is not GGUF, and a truncated one, installing nothing', async () => {
    const html = join(root, 'copied', 'page.gguf');
    writeFileSync(html, '<!doctype html><title>Download</title>'.repeat(4));
    const notGguf = await kbqa(['models', 'import', html], env);
    expect(notGguf.code).toBe(1);
    expect(notGguf.stderr).toContain('is not a GGUF model file');
    expect(existsSync(installed('page'))).toBe(false);

    const cut = join(root, 'copied', 'cut.gguf');
    writeFileSync(cut, readFileSync(model).subarray(0, 300_000));
    const truncated = await kbqa(['models', 'import', cut], env);
    expect(truncated.code).toBe(1);
    expect(truncated.stderr).toContain('is truncated');
    expect(existsSync(installed('cut'))).toBe(false);

    const missing = await kbqa(['models', 'import', join(root, 'nowhere.gguf')], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('does not exist');
  });

  it('pulls a chat model of the table from the model host, checking its sha256', async () => {
    const body = readFileSync(model);
    const paths: string[] = [];
    const hub = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(200, { 'content-length': body.length }).end(body);
    });
    await new Promise<void>((r) => hub.listen(0, '127.0.0.1', r));
    const pullEnv = { ...env, KBQA_MODEL_HOST: `http://127.0.0.1:${(hub.address() as AddressInfo).port}/` };
    try {
      const sha256 = createHash('sha256').update(body).digest('hex');
      const wrong = await kbqa(
        ['models', 'pull', 'qwen2.5-0.5b-instruct', '--sha256', 'b'.repeat(64)],
        pullEnv,
      );
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain(
        `has sha256 ${sha256}, not the expected ${'b'.repeat(64)}; it was deleted`,
      );
      expect(existsSync(installed('qwen2.5-0.5b-instruct'))).toBe(false);

      const out = await kbqa(
        ['models', 'pull', 'qwen2.5-0.5b-instruct', '--sha256', sha256, '--json'],
        pullEnv,
      );
      expect(out.code).toBe(0);
      expect(JSON.parse(out.stdout)).toMatchObject({
        model: 'qwen2.5-0.5b-instruct',
        file: installed('qwen2.5-0.5b-instruct'),
        sha256_checked: true,
        resumed_from: 0,
      });
      // The revision the table's digest was published for, not whatever `main` holds today.
      const pinned =
        '/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/9217f5db79a29953eb74d5343926648285ec7e67/qwen2.5-0.5b-instruct-q4_k_m.gguf';
      expect(paths).toEqual([pinned, pinned]);
      expect(readFileSync(installed('qwen2.5-0.5b-instruct')).equals(body)).toBe(true);

      // Without --sha256 the table's digest is the one checked: this file is not that model.
      const table = await kbqa(['models', 'pull', 'qwen3-0.6b'], pullEnv);
      expect(table.code).toBe(1);
      expect(table.stderr).toContain(
        `has sha256 ${sha256}, not the expected ac2d97712095a558e31573f62f466a3f9d93990898b0ec79d7c974c1780d524a`,
      );
      expect(paths.at(-1)).toBe('/unsloth/Qwen3-0.6B-GGUF/resolve/main/Qwen3-0.6B-Q4_K_M.gguf');
      expect(existsSync(installed('qwen3-0.6b'))).toBe(false);
    } finally {
      await new Promise<void>((r) => hub.close(() => r()));
    }
  });
});
