import { spawn } from 'node:child_process';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { abortedError, KbqaError } from '@kbqa/core';

export interface CloneOptions {
  gitBinary: string;
  /** Rebuilt by `parseRepoUrl`, never the caller's string. */
  url: string;
  /** Folder to clone into; must not exist yet. */
  dir: string;
  /** Used as HOME so no user configuration is read. */
  homeDir: string;
  allowHttp: boolean;
  /** `host:port:address` pinning git to the checked addresses (see `pinnedResolve`). */
  resolve?: string;
  timeoutMs: number;
  maxBytes: number;
  signal: AbortSignal;
  /** How often the folder size is measured while git runs. */
  sizePollMs?: number;
}

/** Arguments of the shallow clone; exported so tests can assert the hardening stays in place. */
export function cloneArgs(url: string, dir: string, allowHttp: boolean, resolve?: string): string[] {
  return [
    // Connect where the address guard looked: no second DNS answer (rebinding) between check and use.
    ...(resolve ? ['-c', `http.curloptResolve=${resolve}`] : []),
    '-c', 'protocol.allow=never',
    '-c', 'protocol.https.allow=always',
    ...(allowHttp ? ['-c', 'protocol.http.allow=always'] : []),
    // The address guard checked this host; a redirect could send git somewhere it did not check.
    '-c', 'http.followRedirects=false',
    '-c', 'credential.helper=',
    '-c', 'core.askPass=',
    '-c', 'core.fsmonitor=false',
    '-c', 'submodule.recurse=false',
    'clone',
    '--depth', '1',
    '--branch', 'main',
    '--single-branch',
    '--no-tags',
    '--no-recurse-submodules',
    '--template=',
    '--quiet',
    '--',
    url,
    dir,
  ]; // prettier-ignore
}

/** Environment of git: nothing inherited but PATH, so no proxy, askpass or config leaks in. */
export function gitEnv(homeDir: string, path: string | undefined): NodeJS.ProcessEnv {
  return {
    PATH: path ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: homeDir,
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GIT_LFS_SKIP_SMUDGE: '1',
  };
}

/** Bytes under `dir` (files only, symlinks not followed); missing entries count as 0. */
export async function folderSize(dir: string): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await folderSize(path);
    else if (entry.isFile()) {
      try {
        total += (await lstat(path)).size;
      } catch {
        // git renames temporary pack files while we measure
      }
    }
  }
  return total;
}

function classify(stderr: string, code: number | null): KbqaError {
  if (/remote branch main not found|couldn't find remote ref (refs\/heads\/)?main/i.test(stderr)) {
    return new KbqaError('NOT_FOUND', 'the repository has no main branch');
  }
  if (
    /repository .* not found|could not read username|authentication failed|terminal prompts disabled|returned error: (401|403|404)/i.test(
      stderr,
    )
  ) {
    return new KbqaError('NOT_FOUND', 'the repository was not found or is not public');
  }
  const line =
    stderr
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('warning:'))
      .pop() ?? `git exited with code ${String(code)}`;
  return new KbqaError('FETCH_FAILED', `cloning the repository failed: ${line.slice(0, 300)}`);
}

/**
 * Runs the hardened shallow clone. git is spawned directly rather than through simple-git: its
 * unsafe-operations guard refuses the very flags that lock git down (`-c protocol.allow=never`,
 * `-c credential.helper=`, `--template=`, GIT_CONFIG_GLOBAL), and its timeout is an inactivity
 * timer, while we need a wall-clock limit and to kill git's whole process group
 * (git-remote-https, index-pack) on timeout, size cap or abort. Resolves only after git exited,
 * so the caller can remove the folder safely.
 */
export function cloneRepository(options: CloneOptions, path: string | undefined): Promise<void> {
  const { signal } = options;
  if (signal.aborted) return Promise.reject(abortedError());
  return new Promise<void>((resolve, reject) => {
    const child = spawn(
      options.gitBinary,
      cloneArgs(options.url, options.dir, options.allowHttp, options.resolve),
      {
        env: gitEnv(options.homeDir, path),
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      },
    );
    let stderr = '';
    let stopReason: KbqaError | undefined;
    let spawnError: Error | undefined;
    let exited = false;
    let pollTimer: NodeJS.Timeout | undefined;

    const stop = (reason: KbqaError): void => {
      if (stopReason || exited) return;
      stopReason = reason;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const onAbort = (): void => stop(abortedError());
    signal.addEventListener('abort', onAbort, { once: true });
    const timeout = setTimeout(
      () =>
        stop(new KbqaError('TIMEOUT', `cloning took longer than ${Math.round(options.timeoutMs / 1000)} s`)),
      options.timeoutMs,
    );
    const tooLarge = (): KbqaError =>
      new KbqaError('TOO_LARGE', `the repository is larger than ${options.maxBytes} bytes`);
    const poll = (): void => {
      pollTimer = setTimeout(() => {
        void folderSize(options.dir).then((size) => {
          if (exited) return;
          if (size > options.maxBytes) stop(tooLarge());
          else poll();
        });
      }, options.sizePollMs ?? 500);
    };
    poll();

    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 64 * 1024) stderr += chunk;
    });
    const cleanup = (): boolean => {
      if (exited) return false;
      exited = true;
      clearTimeout(timeout);
      clearTimeout(pollTimer);
      signal.removeEventListener('abort', onAbort);
      return true;
    };
    child.on('error', (error) => {
      spawnError = error;
      // A binary that never started emits no 'close' on every Node version.
      if (child.pid === undefined && cleanup()) {
        reject(new KbqaError('INTERNAL', `git could not be started: ${error.message}`, { cause: error }));
      }
    });
    child.on('close', (code) => {
      if (!cleanup()) return;
      if (stopReason) return reject(stopReason);
      if (spawnError) {
        return reject(
          new KbqaError('INTERNAL', `git could not be started: ${spawnError.message}`, { cause: spawnError }),
        );
      }
      if (code !== 0) return reject(classify(stderr, code));
      // The poll may not have run on a fast clone; the cap holds either way.
      folderSize(options.dir).then(
        (size) => (size > options.maxBytes ? reject(tooLarge()) : resolve()),
        reject,
      );
    });
  });
}
