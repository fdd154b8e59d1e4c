import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export const REPO = resolve(__dirname, '..', '..', '..');

/**
 * Debian's docker.io client when it is there: it builds with the daemon's own BuildKit, which the
 * Dockerfile's cache mount needs; a newer client without the buildx plugin only has the legacy
 * builder.
 */
export const DOCKER = existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';
const ENV = { ...process.env, DOCKER_BUILDKIT: '1' };

/** Runs docker and answers its standard output, trimmed; a failure carries its standard error. */
export async function docker(args: string[], timeoutMs = 120_000): Promise<string> {
  try {
    const { stdout } = await exec(DOCKER, args, { env: ENV, timeout: timeoutMs, maxBuffer: 64 << 20 });
    return stdout.trim();
  } catch (e) {
    const { stderr, stdout } = e as { stderr?: string; stdout?: string };
    throw new Error(`docker ${args.join(' ')}: ${String(stderr || stdout || e).slice(-4000)}`);
  }
}

/** Runs a long command, its output going to a log kept for the error (docker build, compose). */
export function runLogged(
  cmd: string,
  args: string[],
  options: { cwd?: string; timeoutMs: number; env?: NodeJS.ProcessEnv },
) {
  return new Promise<string>((done, fail) => {
    const child = spawn(cmd, args, {
      cwd: options.cwd,
      env: { ...ENV, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    const keep = (b: Buffer) => {
      log = (log + b.toString()).slice(-200_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) done(log);
      else fail(new Error(`${cmd} ${args.join(' ')} exited ${code ?? signal}:\n${log.slice(-6000)}`));
    });
  });
}

export async function imageExists(tag: string): Promise<boolean> {
  return docker(['image', 'inspect', tag]).then(
    () => true,
    () => false,
  );
}

/**
 * A base image made here (test/base-image.sh) and kept between runs: no image registry is
 * reachable, so the public node:20-bookworm-slim (or PostgreSQL and Redis images) cannot be pulled.
 * Its tag is the script's hash, so a changed script makes a new image.
 */
export async function baseImage(kind: 'node' | 'services'): Promise<string> {
  const script = resolve(__dirname, 'base-image.sh');
  const hash = createHash('sha256').update(readFileSync(script)).digest('hex').slice(0, 12);
  const tag = `kbqa-test-${kind}:${hash}`;
  if (!(await imageExists(tag))) await runLogged('bash', [script, kind, tag], { timeoutMs: 1_200_000 });
  return tag;
}

/** A port free on 127.0.0.1 now (containers run on the host's network). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** Polls until the service answers /health with 200 (or the container exits); answers its body. */
export async function waitForHealth(base: string, container?: string): Promise<Record<string, unknown>> {
  for (let i = 0; ; i++) {
    const res = await fetch(`${base}/health`).catch(() => undefined);
    if (res?.status === 200) return (await res.json()) as Record<string, unknown>;
    if (container !== undefined && i % 20 === 19) {
      const state = await docker(['inspect', '--format', '{{.State.Status}}', container]);
      if (state !== 'running') throw new Error(`${container} is ${state}:\n${await logs(container)}`);
    }
    if (i > 1200) throw new Error(`${base}/health did not answer 200`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls until Docker's own HEALTHCHECK calls the container healthy. */
export async function waitForDockerHealthy(container: string): Promise<void> {
  for (let i = 0; ; i++) {
    const status = await docker(['inspect', '--format', '{{.State.Health.Status}}', container]);
    if (status === 'healthy') return;
    if (i > 600) throw new Error(`${container}'s health check says ${status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function logs(container: string): Promise<string> {
  const { stdout, stderr } = await exec(DOCKER, ['logs', container], { env: ENV, maxBuffer: 64 << 20 }).catch(
    (e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }),
  );
  return `${stdout}${stderr}`.slice(-6000);
}

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function post(base: string, path: string, body: unknown, token?: string): Promise<Reply> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A project and a server key through the operator API. */
export async function projectAndKey(
  base: string,
  token: string,
): Promise<{ projectId: number; key: string }> {
  const project = await post(base, '/admin/v1/projects', { name: 'docs' }, token);
  if (project.status !== 201) throw new Error(`create project: ${JSON.stringify(project)}`);
  const key = await post(base, `/admin/v1/projects/${project.body.id}/keys`, { kind: 'server' }, token);
  if (key.status !== 201) throw new Error(`create key: ${JSON.stringify(key)}`);
  return { projectId: project.body.id as number, key: key.body.key as string };
}

/** Polls ingestionStatus until the task completes. */
export async function waitForTask(base: string, key: string, taskId: string): Promise<void> {
  for (let i = 0; ; i++) {
    const s = await post(base, '/v1/ingestionStatus', { api_key: key, task_id: taskId });
    if (s.body?.status === 'completed') return;
    if (i > 1200 || s.body?.status === 'failed') throw new Error(`ingestion: ${JSON.stringify(s.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const INSTALL_PAGE = {
  source: 'install',
  content: '# Install\n\nThe acme installer sets up the widget factory.',
};

export function ask(base: string, key: string): Promise<Reply> {
  return post(base, '/v1/serviceChat', {
    api_key: key,
    question: 'What does the acme installer set up?',
    history: [],
    shouldStream: false,
  });
}

/** Docker Compose: the v2 plugin when the client has it, else docker-compose (Debian's v1). */
export async function composeCommand(): Promise<string[]> {
  const v2 = await docker(['compose', 'version']).then(
    () => true,
    () => false,
  );
  return v2 ? [DOCKER, 'compose'] : ['docker-compose'];
}
