import { type ChildProcess, spawn } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { startServer as startSite, type TestServer } from '@kbqa/core/testing';
import { redisConnection } from '../src/ingestion/bullmq.queue';
import { cli } from './process-helpers';

/** A `kbqa worker` process started by a test (the BullMQ worker specs). */
export interface WorkerProcess {
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves once its output so far matches `pattern`; rejects if it exits first. */
  until(pattern: RegExp): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` unless it has exited, and resolves once it has. */
  stop(signal: NodeJS.Signals): Promise<void>;
}

/** Starts `kbqa worker` and resolves once it says its workers run. */
export async function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [join(__dirname, '..', 'dist', 'cli.js'), 'worker'], {
    env: { ...process.env, KBQA_EMBED_MODEL: 'none', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiting = new Set<() => void>();
  const keep = (d: Buffer) => {
    output += d.toString();
    for (const check of [...waiting]) check();
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const until = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(output)) return;
        waiting.delete(check);
        resolve();
      };
      waiting.add(check);
      check();
      void exited.then(({ code, signal }) =>
        reject(new Error(`kbqa worker exited (${code ?? signal}) before ${pattern}: ${output}`)),
      );
    });
  const stop = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  await until(/ingestion worker running/);
  return { child, output: () => output, until, exited, stop };
}

/**
 * A site whose one page (`/page`) is held unanswered until `release()`: a task fetching it is
 * known to be running (`requested` resolves) and stays so while the test stops its worker.
 */
export interface HeldPageSite {
  site: TestServer;
  requested: Promise<void>;
  /** Answers every later request, and drops the held ones (their worker is gone). */
  release(): void;
  close(): Promise<void>;
}

export async function startHeldPageSite(): Promise<HeldPageSite> {
  const held: ServerResponse[] = [];
  let open = false;
  let markRequested: () => void = () => undefined;
  const requested = new Promise<void>((r) => (markRequested = r));
  const site = await startSite((req, res) => {
    if (req.url !== '/page') return void res.writeHead(404).end();
    if (!open) {
      held.push(res);
      markRequested();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      '<html><head><title>P</title></head><body><main><h1>P</h1><p>The page, at last.</p></main></body></html>',
    );
  });
  return {
    site,
    requested,
    release: () => {
      open = true;
      held.splice(0).forEach((r) => r.destroy());
    },
    close: async () => {
      held.splice(0).forEach((r) => r.destroy());
      await site.close();
    },
  };
}

/** A project and a server key made with the CLI on the data directory of `env`. */
export async function projectWithServerKey(env: Record<string, string>, name: string): Promise<string> {
  const project = JSON.parse(await cli(['projects', 'create', name, '--json'], env));
  const key = JSON.parse(
    await cli(['keys', 'create', '--project', String(project.id), '--kind', 'server', '--json'], env),
  );
  return key.key as string;
}

/** Removes a test's own queue from Redis. */
export async function obliterateQueue(redisUrl: string, name: string): Promise<void> {
  const queue = new Queue(name, { connection: redisConnection(redisUrl) });
  await queue.obliterate({ force: true });
  await queue.close();
}
