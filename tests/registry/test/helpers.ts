import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { lstat, readdir, readFile, readlink, realpath, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const WORKSPACE = resolve(__dirname, '..', '..', '..');

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Runs a command and returns stdout; the error says what it printed. */
export async function sh(
  file: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<string> {
  return (await shOutput(file, args, options)).stdout;
}

/** Like `sh`, with stderr too (npm's log goes there). */
export async function shOutput(
  file: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(file, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      // Below the suite's jest timeout, so that a hung command fails with its own output.
      timeout: options.timeoutMs ?? 600_000,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${file} ${args.join(' ')} failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`,
    );
  }
}

export interface Registry {
  url: string;
  /** The config.yaml Verdaccio runs with. */
  config: string;
  token: string;
  stop(): Promise<void>;
}

/**
 * Starts Verdaccio on 127.0.0.1 with storage in `storage`, which the caller has already seeded
 * with every third-party package the installs need (see seed.ts). There is no uplink: a package
 * that is neither seeded nor published by the test is a 404, never a fetch from the internet.
 */
export async function startVerdaccio(dir: string, storage: string): Promise<Registry> {
  const port = await freePort();
  const config = [
    `storage: ${JSON.stringify(storage)}`,
    'auth:',
    '  htpasswd:',
    '    file: ./htpasswd',
    '    max_users: 10',
    'packages:',
    "  '**':",
    '    access: $all',
    '    publish: $authenticated',
    'max_body_size: 200mb',
    'log: { type: stdout, format: json, level: warn }',
    '',
  ].join('\n');
  await writeFile(join(dir, 'config.yaml'), config);
  const bin = join(__dirname, '..', 'node_modules', '.bin', 'verdaccio');
  const child = spawn(bin, ['--config', join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}/`;
  const stop = () => stopGroup(child);
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      if ((await fetch(`${url}-/ping`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`verdaccio did not start: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  // The registry's adduser API: creates the user in the htpasswd file and answers a token.
  const res = await fetch(`${url}-/user/org.couchdb.user:kbqa-test`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'kbqa-test', password: 'kbqa-test-password', type: 'user', roles: [] }),
  });
  const body = (await res.json()) as { token?: string };
  if (!res.ok || !body.token) {
    await stop();
    throw new Error(`adduser failed: ${res.status} ${JSON.stringify(body)}`);
  }
  return { url, config, token: body.token, stop };
}

/** Stops a process started with `detached: true` and everything it started (npx runs node under it). */
export async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  process.kill(-child.pid, 'SIGTERM');
  const timer = setTimeout(() => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
  }, 10_000);
  await exited;
  clearTimeout(timer);
}

/** The environment of a user's shell: no pnpm or workspace variables that could point into the repo. */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(npm_|pnpm_|PNPM_|NODE_PATH$|INIT_CWD$|TURBO_|JEST_)/.test(k)) continue;
    if (k === 'PATH' && v) {
      env.PATH = v
        .split(':')
        .filter((p) => !p.startsWith(WORKSPACE))
        .join(':');
      continue;
    }
    env[k] = v;
  }
  return { ...env, ...extra };
}

/**
 * What proves nothing came from the workspace: every installed file is a real file or a link
 * inside the folder, every kbqa package resolves inside it, and no published manifest still says
 * `workspace:`.
 */
export async function assertNoWorkspaceLeak(folder: string): Promise<string[]> {
  const real = await realpath(folder);
  const problems: string[] = [];
  const kbqaPackages: string[] = [];
  async function walk(dir: string): Promise<void> {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        const target = resolve(dirname(full), await readlink(full));
        if (!target.startsWith(real + '/')) problems.push(`${full} -> ${target}`);
      } else if (entry.isDirectory()) {
        await walk(full);
      } else if (entry.name === 'package.json' && /node_modules\/(kbqa|@kbqa\/[^/]+)$/.test(dir)) {
        kbqaPackages.push(dir);
        const text = await readFile(full, 'utf8');
        if (text.includes('workspace:')) problems.push(`${full} still says workspace:`);
      }
    }
  }
  await walk(join(real, 'node_modules'));
  for (const dir of kbqaPackages) {
    if ((await lstat(dir)).isSymbolicLink()) problems.push(`${dir} is a link`);
    if (!(await realpath(dir)).startsWith(real + '/')) problems.push(`${dir} resolves outside`);
  }
  if (problems.length > 0) throw new Error(`workspace leaked into ${folder}:\n${problems.join('\n')}`);
  return kbqaPackages.map((d) => d.slice(d.lastIndexOf('node_modules/') + 'node_modules/'.length)).sort();
}

export interface PrebuildHost {
  /** For `npm_config_better_sqlite3_binary_host`. */
  url: string;
  /** Paths asked for, to see whether npm took the prebuilt binary. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Stands in for better-sqlite3's prebuilt-binary host (GitHub releases, which this machine cannot
 * reach): serves the workspace's own compiled better_sqlite3.node in prebuild-install's tarball
 * layout, for the same better-sqlite3 version only (any other gets 404 and npm compiles it).
 * Without it the install compiles SQLite from source, about 4.5 minutes on two shared cores.
 */
export async function startPrebuildHost(dir: string): Promise<PrebuildHost> {
  const pkgDir = dirname(
    require.resolve('better-sqlite3/package.json', { paths: [join(WORKSPACE, 'packages', 'store-sqlite')] }),
  );
  const { version } = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  const tarball = join(dir, 'better-sqlite3-prebuilt.tar.gz');
  await sh('tar', ['-czf', tarball, '-C', pkgDir, 'build/Release/better_sqlite3.node'], { cwd: dir });
  const body = await readFile(tarball);
  const requests: string[] = [];
  const server: Server = createHttpServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    const wanted = `/v${version}/better-sqlite3-v${version}-node-v${process.versions.modules}-linux-x64.tar.gz`;
    if (path !== wanted) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('content-type', 'application/gzip');
    res.end(body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
