import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const DIST = join(__dirname, '..', 'dist');

/** Runs the built CLI (`pnpm kbqa` without pnpm's banner) and returns stdout. */
export async function cli(args: string[], env: Record<string, string>): Promise<string> {
  const { stdout } = await run(process.execPath, [join(DIST, 'cli.js'), ...args], {
    env: { ...process.env, ...env },
  });
  return stdout;
}

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Sends SIGKILL and waits for the exit: a crash, not a clean shutdown. */
  kill(): Promise<void>;
  /** Sends SIGTERM and waits for a clean exit. */
  stop(): Promise<void>;
  /** Everything the process wrote to stdout and stderr so far (its log). */
  output(): string;
}

/** Starts `node dist/main.js` on a free port and resolves once it listens. */
export function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [join(DIST, 'main.js')], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', KBQA_EMBED_MODEL: 'none', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let output = '';
    let listening = false;
    const onData = (data: Buffer) => {
      output += data.toString();
      const m = listening ? null : /listening on http:\/\/[^:]+:(\d+)/.exec(output);
      if (m) {
        listening = true;
        resolve({
          child,
          baseUrl: `http://127.0.0.1:${m[1]}`,
          kill: async () => {
            child.kill('SIGKILL');
            await exited;
          },
          stop: async () => {
            child.kill('SIGTERM');
            await exited;
          },
          output: () => output,
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

export async function postJson(
  baseUrl: string,
  path: string,
  body: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert response bodies field by field
): Promise<{ status: number; body: any }> {
  const res = await fetch(baseUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain-text answers stay text
  }
  return { status: res.status, body: parsed };
}

/** Resolves once the process prints `pattern` (stdout or stderr); rejects if it exits first. */
export function waitForOutput(child: ChildProcess, pattern: RegExp, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (d: Buffer): void => {
      output += d.toString();
      if (pattern.test(output)) {
        child.stdout?.off('data', onData);
        child.stderr?.off('data', onData);
        child.stdout?.resume();
        child.stderr?.resume();
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) => reject(new Error(`${what} exited (${code ?? signal}): ${output}`)));
  });
}
