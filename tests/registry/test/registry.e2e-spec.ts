import { type ChildProcess, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBareRepo, startGitHttpServer } from '../../../packages/loader-github/test/git-http-server';
import {
  assertNoWorkspaceLeak,
  type PrebuildHost,
  type Registry,
  sh,
  shOutput,
  startPrebuildHost,
  startVerdaccio,
  stopGroup,
  userEnv,
  WORKSPACE,
} from './helpers';
import { lockClosure, seedStorage } from './seed';

const CONSUMER_SCRIPTS = join(__dirname, '..', 'consumer');
/** The workspace packages the tests install; the registry is seeded with their third-party closure. */
const INSTALLED = ['packages/loader-url', 'packages/chunker', 'packages/loader-github', 'apps/api'];

/**
 * The packages as a user gets them: published to a real npm registry (Verdaccio) by `pnpm publish`,
 * installed by npm in an empty folder outside the workspace, used from plain Node.js. Offline: the
 * registry has no uplink and is seeded with the third-party packages (the exact versions of
 * pnpm-lock.yaml, packed from node_modules/.pnpm), and npm gets an empty cache.
 */
describe('published packages', () => {
  let root: string;
  let registry: Registry;
  let prebuilds: PrebuildHost;
  let published: string[];
  let seeded: number;
  /** Every URL npm fetched, from its `http fetch` log lines. */
  const fetched: string[] = [];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'kbqa-registry-'));
    await mkdir(join(root, 'verdaccio'));
    await mkdir(join(root, 'npm-cache'));
    await writeFile(join(root, 'user.npmrc'), '');
    const storage = join(root, 'verdaccio', 'storage');
    const thirdParty = lockClosure(WORKSPACE, INSTALLED);
    await seedStorage(storage, thirdParty);
    seeded = thirdParty.length;
    registry = await startVerdaccio(join(root, 'verdaccio'), storage);
    prebuilds = await startPrebuildHost(root);
    const host = new URL(registry.url).host;
    const publishRc = join(root, 'publish.npmrc');
    await writeFile(publishRc, `registry=${registry.url}\n//${host}/:_authToken=${registry.token}\n`);
    const pnpm = process.env.npm_execpath?.includes('pnpm') ? process.env.npm_execpath : undefined;
    const [file, pre] = pnpm ? [process.execPath, [pnpm]] : ['pnpm', []];
    // pnpm publish rewrites workspace:^ to the real version; private packages (root, this one) are skipped.
    await sh(file, [...pre, '-r', 'publish', '--registry', registry.url, '--no-git-checks'], {
      cwd: WORKSPACE,
      env: { ...process.env, npm_config_userconfig: publishRc },
    });
    const res = await fetch(`${registry.url}-/verdaccio/data/packages`);
    published = res.ok ? ((await res.json()) as Array<{ name: string }>).map((p) => p.name).sort() : [];
  }, 900_000);

  afterAll(async () => {
    await registry?.stop();
    await prebuilds?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  /** An empty folder whose .npmrc points at the local registry, as a user's project would. */
  async function consumer(name: string): Promise<string> {
    const dir = join(root, name);
    await mkdir(dir);
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name, private: true }));
    await writeFile(join(dir, '.npmrc'), `registry=${registry.url}\n`);
    return dir;
  }

  /**
   * npm as a user runs it, but pointed only at the local registry: its own (empty) user config,
   * the registry in the environment, an empty cache of this run (nothing fetched earlier can stand
   * in for a fetch), no update check.
   */
  const npmEnv = (extra: Record<string, string> = {}) =>
    userEnv({
      npm_config_registry: registry.url,
      npm_config_userconfig: join(root, 'user.npmrc'),
      npm_config_cache: join(root, 'npm-cache'),
      npm_config_update_notifier: 'false',
      ...extra,
    });

  const npmInstall = async (dir: string, ...names: string[]) => {
    const { stderr } = await shOutput(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=http', ...names],
      {
        cwd: dir,
        // onnxruntime-node's install script downloads CUDA libraries; its CPU binaries ship in the package.
        env: npmEnv({
          ONNXRUNTIME_NODE_INSTALL: 'skip',
          npm_config_better_sqlite3_binary_host: prebuilds.url,
        }),
      },
    );
    const urls = [...stderr.matchAll(/^npm http fetch \w+ \d+ (\S+)/gm)].map((m) => m[1] ?? '');
    expect(urls.length).toBeGreaterThan(0);
    fetched.push(...urls);
  };

  it('seeds the third-party packages into a registry with no uplink', () => {
    expect(seeded).toBeGreaterThan(100);
    expect(registry.config).not.toMatch(/uplinks|proxy:/);
  });

  afterEach(() => {
    // Each install's fetches, checked as it finishes: only the local registry.
    expect(fetched.filter((url) => !url.startsWith(registry.url))).toEqual([]);
  });

  it('publishes every package of the workspace', () => {
    expect(published).toEqual(
      expect.arrayContaining([
        'kbqa',
        '@kbqa/chunker',
        '@kbqa/core',
        '@kbqa/fetcher',
        '@kbqa/loader-github',
        '@kbqa/loader-url',
        '@kbqa/ranking',
        '@kbqa/store-postgres',
        '@kbqa/store-sqlite',
        '@kbqa/dashboard',
        '@kbqa/widget',
      ]),
    );
  });

  it('installs @kbqa/loader-url and @kbqa/chunker and chunks a page served locally (ES module)', async () => {
    const dir = await consumer('page-user');
    await npmInstall(dir, '@kbqa/loader-url', '@kbqa/chunker');
    expect(await assertNoWorkspaceLeak(dir)).toEqual(
      expect.arrayContaining([
        '@kbqa/chunker',
        '@kbqa/core',
        '@kbqa/fetcher',
        '@kbqa/html',
        '@kbqa/loader-url',
      ]),
    );
    const page = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(
        '<html><head><title>Install guide</title></head><body><main><h1>Install guide</h1>' +
          '<p>Run the installer to set up the widget factory on your machine.</p>' +
          '<h2>Upgrade</h2><p>Upgrading keeps every setting of the widget factory.</p></main></body></html>',
      );
    });
    await new Promise<void>((done) => page.listen(0, '127.0.0.1', done));
    try {
      await copyFile(join(CONSUMER_SCRIPTS, 'load-page.mjs'), join(dir, 'load-page.mjs'));
      const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/guide`;
      const chunks = JSON.parse(await sh('node', ['load-page.mjs', url], { cwd: dir, env: userEnv() }));
      expect(chunks.length).toBeGreaterThan(0);
      const text = chunks.map((c: { content: string }) => c.content).join('\n');
      expect(text).toContain('widget factory');
      expect(text).toContain('Upgrade');
    } finally {
      await closeServer(page);
    }
  });

  it('installs @kbqa/loader-github and loads a repository from a git smart-HTTP server (CommonJS)', async () => {
    const dir = await consumer('repo-user');
    await npmInstall(dir, '@kbqa/loader-github');
    await assertNoWorkspaceLeak(dir);
    const repos = join(root, 'repos');
    await createBareRepo(repos, 'acme', 'docs', {
      'README.md': '# Acme\n\nAcme ships widgets.',
      'docs/install.md': '# Install\n\nRun the acme installer.',
      'src/index.js': 'module.exports = 1;',
    });
    const git = await startGitHttpServer(repos);
    try {
      await copyFile(join(CONSUMER_SCRIPTS, 'load-repo.cjs'), join(dir, 'load-repo.cjs'));
      const docs = JSON.parse(
        await sh('node', ['load-repo.cjs', git.baseUrl, `${git.baseUrl}/acme/docs`], {
          cwd: dir,
          env: userEnv(),
        }),
      );
      const text = docs.map((d: { content: string }) => d.content).join('\n');
      expect(text).toContain('Run the acme installer.');
      expect(text).not.toContain('module.exports');
    } finally {
      await git.close();
    }
  });

  it('installs kbqa; npx kbqa start answers /health and a chat after an ingestion', async () => {
    const dir = await consumer('server-user');
    await npmInstall(dir, 'kbqa');
    expect(await assertNoWorkspaceLeak(dir)).toEqual(expect.arrayContaining(['kbqa', '@kbqa/store-sqlite']));
    // The install took better-sqlite3's binary from the local prebuilt host, not a compile.
    expect(prebuilds.requests.some((path) => path.endsWith('-linux-x64.tar.gz'))).toBe(true);
    const env = npmEnv({
      KBQA_DATA_DIR: join(dir, 'data'),
      KBQA_EMBED_MODEL: 'none',
      PORT: '0',
      HOST: '127.0.0.1',
    });
    const project = JSON.parse(
      await sh('npx', ['kbqa', 'projects', 'create', 'docs', '--json'], { cwd: dir, env }),
    );
    const key = JSON.parse(
      await sh(
        'npx',
        ['kbqa', 'keys', 'create', '--project', String(project.id), '--kind', 'server', '--json'],
        {
          cwd: dir,
          env,
        },
      ),
    );
    const server = spawn('npx', ['kbqa', 'start'], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    try {
      const base = await listening(server);
      expect((await fetch(`${base}/health`)).status).toBe(200);
      const ingest = await post(base, '/v1/ingestDocuments', {
        api_key: key.key,
        documents: [
          { source: 'install', content: '# Install\n\nThe acme installer sets up the widget factory.' },
        ],
      });
      expect(ingest.status).toBe(200);
      const deadline = Date.now() + 300_000;
      for (;;) {
        const s = await post(base, '/v1/ingestionStatus', {
          api_key: key.key,
          task_id: String(ingest.body.task_id),
        });
        if (s.body.status === 'completed') break;
        if (Date.now() > deadline || s.body.status === 'failed')
          throw new Error(`ingestion: ${JSON.stringify(s.body)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const chat = await post(base, '/v1/serviceChat', {
        api_key: key.key,
        question: 'What does the acme installer set up?',
        history: [],
        shouldStream: false,
      });
      expect(chat.status).toBe(200);
      expect(chat.body.answer.text).toContain('widget factory');
      expect(chat.body.sources.length).toBeGreaterThan(0);
    } finally {
      await stopGroup(server);
    }
  });
});

function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(output);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`kbqa start exited with ${code}: ${output}`)));
  });
}

async function post(
  base: string,
  path: string,
  body: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert response bodies field by field
): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((done) => {
    server.closeAllConnections();
    server.close(() => done());
  });
}
