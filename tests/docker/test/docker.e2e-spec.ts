import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadCompose, onHostNetwork } from './compose';
import {
  ask,
  baseImage,
  composeCommand,
  docker,
  DOCKER,
  freePort,
  INSTALL_PAGE,
  post,
  projectAndKey,
  REPO,
  runLogged,
  waitForDockerHealthy,
  waitForHealth,
  waitForTask,
} from './docker';

const withDocker = process.env.KBQA_TEST_DOCKER === '1' ? describe : describe.skip;

/** The registry npm uses here, passed to the build (a mirror, when one is configured). */
function npmRegistry(): Promise<string> {
  return new Promise((done) =>
    execFile('npm', ['config', 'get', 'registry'], (e, out) =>
      done(e ? 'https://registry.npmjs.org/' : out.trim()),
    ),
  );
}

/**
 * The Dockerfile at the repository root, built here (its base made by test/base-image.sh, since
 * node:20-bookworm-slim cannot be pulled) and run as docs/deploy.md runs it: one container with
 * SQLite on a named volume, then deploy/compose.scale.yml's API containers, worker, PostgreSQL and
 * Redis.
 */
withDocker('kbqa in Docker', () => {
  const id = `${process.pid}-${randomBytes(3).toString('hex')}`;
  // KBQA_DOCKER_IMAGE: an image already built from this tree, to rerun the cases without the build.
  const prebuilt = process.env.KBQA_DOCKER_IMAGE || undefined;
  const image = prebuilt ?? `kbqa-test:${id}`;
  const token = randomBytes(16).toString('hex');

  beforeAll(async () => {
    if (prebuilt) return;
    const from = await baseImage('node');
    const started = Date.now();
    // The build reaches the npm registry (and Debian's mirror for the compiler) on the host's network.
    await runLogged(
      DOCKER,
      [
        'build',
        '--network',
        'host',
        '--build-arg',
        `BASE=${from}`,
        '--build-arg',
        `NPM_REGISTRY=${await npmRegistry()}`,
        '-t',
        image,
        '.',
      ],
      { cwd: REPO, timeoutMs: 1_500_000 },
    );
    process.stdout.write(
      `kbqa docker tests: docker build took ${Math.round((Date.now() - started) / 1000)} s\n`,
    );
  }, 1_800_000);

  afterAll(async () => {
    if (!prebuilt) await docker(['rmi', '-f', image]).catch(() => undefined);
  });

  describe('the image', () => {
    const container = `kbqa-test-one-${id}`;
    const volume = `kbqa-test-data-${id}`;

    afterAll(async () => {
      await docker(['rm', '-f', container]).catch(() => undefined);
      await docker(['volume', 'rm', '-f', volume]).catch(() => undefined);
    });

    it('runs kbqa start as a user of its own, with /data a volume, a health check and port 3000', async () => {
      const [inspected] = JSON.parse(await docker(['image', 'inspect', image])) as [
        { Config: Record<string, any>; Size: number }, // eslint-disable-line @typescript-eslint/no-explicit-any
      ];
      const config = inspected.Config;
      expect(config.User).toBe('kbqa');
      expect(config.Volumes).toHaveProperty(['/data']);
      expect(config.ExposedPorts).toHaveProperty(['3000/tcp']);
      expect(config.Entrypoint).toEqual(['kbqa']);
      expect(config.Cmd).toEqual(['start']);
      expect(config.Env).toContain('KBQA_DATA_DIR=/data');
      expect(JSON.stringify(config.Healthcheck.Test)).toContain('/health');
      expect(await docker(['run', '--rm', '--entrypoint', 'id', image, '-u'])).toBe('10001');
      // Production dependencies only: no TypeScript, no test tools, no bundler.
      const modules = await docker(['run', '--rm', '--entrypoint', 'ls', image, '/app/node_modules']);
      expect(modules.split('\n')).toContain('better-sqlite3');
      for (const dev of ['typescript', 'jest', 'esbuild', 'supertest'])
        expect(modules.split('\n')).not.toContain(dev);
      process.stdout.write(`kbqa docker tests: image size ${(inspected.Size / 1e6).toFixed(0)} MB\n`);
    });

    it('serves /health, ingests over HTTP, answers citing the page, stops on SIGTERM and keeps its data', async () => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const started = Date.now();
      await docker([
        'run',
        '-d',
        '--name',
        container,
        '--network',
        'host',
        // Docker's own probe, more often than the image's 30 s, so the test sees it turn healthy.
        '--health-interval',
        '1s',
        '-e',
        `PORT=${port}`,
        '-e',
        'HOST=127.0.0.1',
        '-e',
        `KBQA_ADMIN_TOKEN=${token}`,
        // No model hub is reachable here: lexical retrieval, as the service falls back to anyway.
        '-e',
        'KBQA_EMBED_MODEL=none',
        '-v',
        `${volume}:/data`,
        image,
      ]);
      expect(await waitForHealth(base, container)).toMatchObject({ status: 'ok' });
      await waitForDockerHealthy(container);
      process.stdout.write(`kbqa docker tests: container start to healthy ${Date.now() - started} ms\n`);

      const { projectId, key } = await projectAndKey(base, token);
      const ingest = await post(base, '/v1/ingestDocuments', { api_key: key, documents: [INSTALL_PAGE] });
      expect(ingest.status).toBe(200);
      await waitForTask(base, key, String(ingest.body.task_id));
      const chat = await ask(base, key);
      expect(chat.status).toBe(200);
      expect(chat.body.answer.text).toContain('widget factory');
      expect(chat.body.sources.map((s: { link: string }) => s.link)).toContain('install');

      // docker stop sends SIGTERM, then SIGKILL after 60 s (exit code 137): 0 means kbqa, as PID 1,
      // handled SIGTERM and shut down by itself.
      const stopping = Date.now();
      await docker(['stop', '-t', '60', container], 120_000);
      process.stdout.write(`kbqa docker tests: docker stop took ${Date.now() - stopping} ms\n`);
      expect(await docker(['inspect', '--format', '{{.State.ExitCode}}', container])).toBe('0');
      const files = await docker([
        'run',
        '--rm',
        '--entrypoint',
        'ls',
        '-v',
        `${volume}:/data`,
        image,
        '/data',
      ]);
      expect(files.split('\n')).toContain('kbqa.sqlite');

      await docker(['start', container]);
      await waitForHealth(base, container);
      const again = await ask(base, key);
      expect(again.status).toBe(200);
      expect(again.body.answer.text).toContain('widget factory');
      const sources = await fetch(`${base}/admin/v1/projects/${projectId}/sources`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(await sources.json()).toMatchObject({ total: 1, sources: [{ source: 'install' }] });
    });
  });

  describe('deploy/compose.scale.yml', () => {
    const project = `kbqa-test-scale-${id.replace(/[^a-z0-9]/g, '')}`;
    let dir: string;
    let compose: string[];
    let file: string;
    const env = {
      ...process.env,
      KBQA_ADMIN_TOKEN: token,
      KBQA_SECRET_KEY: randomBytes(32).toString('hex'),
      POSTGRES_PASSWORD: randomBytes(12).toString('hex'),
    };
    const run = (args: string[], timeoutMs = 300_000) =>
      runLogged(compose[0]!, [...compose.slice(1), '-p', project, '-f', file, ...args], { timeoutMs, env });
    const composeOutput = (args: string[]) =>
      new Promise<string>((done, fail) =>
        execFile(compose[0]!, [...compose.slice(1), '-p', project, '-f', file, ...args], { env }, (e, out) =>
          e ? fail(new Error(e.message)) : done(out),
        ),
      );

    afterAll(async () => {
      if (file) await run(['down', '-v', '--timeout', '30']).catch(() => undefined);
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('names the images and settings docs/deploy.md describes', async () => {
      const scale = await loadCompose('deploy/compose.scale.yml');
      expect(Object.keys(scale.services).sort()).toEqual(['api-1', 'api-2', 'postgres', 'redis', 'worker']);
      expect(scale.services.postgres.image).toBe('pgvector/pgvector:pg16');
      expect(scale.services.redis.command).toEqual(
        expect.arrayContaining(['--maxmemory-policy', 'noeviction', '--appendonly', 'yes']),
      );
      for (const api of ['api-1', 'api-2']) expect(scale.services[api].environment.KBQA_WORKER).toBe('0');
      expect(scale.services.worker.command).toEqual(['worker']);
      const one = await loadCompose('docker-compose.yml');
      expect(one.services.kbqa.volumes).toEqual(['kbqa-data:/data']);
    });

    it('runs two API containers and a worker on PostgreSQL and Redis: the worker ingests, both APIs answer', async () => {
      compose = await composeCommand();
      const services = await baseImage('services');
      const ports = {
        'api-1': await freePort(),
        'api-2': await freePort(),
        postgres: await freePort(),
        redis: await freePort(),
      };
      dir = await mkdtemp(join(tmpdir(), 'kbqa-docker-scale-'));
      file = join(dir, 'compose.yml');
      const doc = onHostNetwork(await loadCompose('deploy/compose.scale.yml'), {
        image,
        services,
        pgEntry: resolve(__dirname, 'pg-entry.sh'),
        ports,
        password: env.POSTGRES_PASSWORD,
        extraEnv: { KBQA_EMBED_MODEL: 'none' },
      });
      // JSON is YAML: compose reads it as it is.
      await writeFile(file, JSON.stringify(doc, null, 2));
      await run(['up', '-d', '--no-build']);
      const api1 = `http://127.0.0.1:${ports['api-1']}`;
      const api2 = `http://127.0.0.1:${ports['api-2']}`;
      await waitForHealth(api1);
      await waitForHealth(api2);

      const { key } = await projectAndKey(api1, token);
      const ingest = await post(api2, '/v1/ingestDocuments', { api_key: key, documents: [INSTALL_PAGE] });
      expect(ingest.status).toBe(200);
      // Neither API container runs workers (KBQA_WORKER=0): only the worker container can finish it.
      await waitForTask(api1, key, String(ingest.body.task_id));
      for (const base of [api1, api2]) {
        const chat = await ask(base, key);
        expect(chat.status).toBe(200);
        expect(chat.body.answer.text).toContain('widget factory');
        expect(chat.body.sources.map((s: { link: string }) => s.link)).toContain('install');
      }

      const pg = (await composeOutput(['ps', '-q', 'postgres'])).trim();
      const psql = (sql: string) =>
        docker(
          [
            'exec',
            pg,
            'psql',
            '-h',
            '/run/postgresql',
            '-p',
            String(ports.postgres),
            '-U',
            'kbqa',
            '-d',
            'kbqa',
            '-Atc',
            sql,
          ],
          60_000,
        );
      expect(await psql('SELECT count(*) FROM chunks')).toBe('1');
      // kbqa worker is PID 1 of its container too: docker stop ends it by SIGTERM, not SIGKILL (137).
      const worker = (await composeOutput(['ps', '-q', 'worker'])).trim();
      await docker(['stop', '-t', '60', worker], 120_000);
      expect(await docker(['inspect', '--format', '{{.State.ExitCode}}', worker])).toBe('0');
      // The stand-in server has pgvector, as pgvector/pgvector:pg16 has.
      expect(
        await psql(
          "CREATE EXTENSION IF NOT EXISTS vector; SELECT extversion FROM pg_extension WHERE extname = 'vector'",
        ),
      ).toMatch(/^0\.(8|9)|^[1-9]/m);
    });
  });
});
