import { execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Environment for the git commands tests run themselves: no user or system configuration. */
export const testGitEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: tmpdir(),
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'kbqa test',
  GIT_AUTHOR_EMAIL: 'test@kbqa.invalid',
  GIT_COMMITTER_NAME: 'kbqa test',
  GIT_COMMITTER_EMAIL: 'test@kbqa.invalid',
};

async function git(cwd: string, ...args: string[]): Promise<void> {
  await run('git', args, { cwd, env: testGitEnv, maxBuffer: 64 * 1024 * 1024 });
}

/**
 * Creates `<root>/<owner>/<repo>.git` as a bare repository holding one commit of `files` on
 * `branch`. Values are file contents (a Buffer for binary files).
 */
export async function createBareRepo(
  root: string,
  owner: string,
  repo: string,
  files: Record<string, string | Buffer>,
  branch = 'main',
): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), 'kbqa-src-'));
  try {
    await git(work, 'init', '-q', '-b', branch);
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(work, path)), { recursive: true });
      await writeFile(join(work, path), content);
    }
    await git(work, 'add', '-A');
    await git(work, 'commit', '-q', '-m', 'docs');
    const bare = join(root, owner, `${repo}.git`);
    await mkdir(dirname(bare), { recursive: true });
    await git(work, 'clone', '-q', '--bare', work, bare);
    return bare;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export interface GitHttpServer {
  /** `http://127.0.0.1:<port>`, to be listed in the loader's baseUrls. */
  baseUrl: string;
  /** Paths of every request received, in order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Serves the bare repositories under `root` over git's smart HTTP protocol by running
 * `git http-backend` (a CGI program) for each request. Dumb HTTP cannot serve shallow clones.
 */
export async function startGitHttpServer(root: string): Promise<GitHttpServer> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(url.pathname);
    const cgi = spawn('git', ['http-backend'], {
      env: {
        ...testGitEnv,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(url.pathname),
        REQUEST_METHOD: req.method ?? 'GET',
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_ADDR: '127.0.0.1',
        ...(req.headers['content-encoding']
          ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] }
          : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      const endLf = head.indexOf('\n\n');
      const cut = end >= 0 ? { at: end, len: 4 } : endLf >= 0 ? { at: endLf, len: 2 } : undefined;
      if (!cut) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, cut.at).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon < 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = parseInt(value, 10);
        else res.setHeader(name, value);
      }
      res.statusCode = status;
      res.write(head.subarray(cut.at + cut.len));
    });
    cgi.on('close', () => {
      if (!headersDone) res.statusCode = 500;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * A `git` wrapper that records each invocation in `log`, to prove git was (not) started; with a
 * delay, to cancel a clone while it runs.
 */
export async function createGitSpy(dir: string, delaySeconds = 0): Promise<{ binary: string; log: string }> {
  const binary = join(dir, 'git-spy.sh');
  const log = join(dir, 'git-spy.log');
  const delay = delaySeconds > 0 ? `sleep ${delaySeconds}\n` : '';
  await writeFile(binary, `#!/bin/sh\necho "$@" >> '${log}'\n${delay}exec git "$@"\n`);
  await chmod(binary, 0o755);
  return { binary, log };
}
