import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ExtractiveAnswerGenerator, type ExtractiveAnswerGeneratorOptions } from '@kbqa/answer';
import { type AnswerSource, KbqaError, type SearchHit, type SearchQuery } from '@kbqa/core';
import type {
  AdoptMessage,
  CheckpointWorkerData,
  ReadReply,
  ReadRequest,
  ReadResults,
  ReadWorkerData,
  ReadWorkerStats,
} from './protocol';

/**
 * The compiled worker. From dist this is its own folder; from src (ts-jest) it is the build next
 * to it, as the store's multi-process test uses: a worker thread cannot load TypeScript.
 */
const WORKER_FILE = join(__dirname, '..', 'dist', 'read-worker.js');
const CHECKPOINT_WORKER_FILE = join(__dirname, '..', 'dist', 'checkpoint-worker.js');
/** SQLite's default automatic checkpoint, in WAL pages. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

export interface ReadPoolOptions {
  /** The database file, opened and migrated by the service's own connection first. */
  file: string;
  /** Worker threads, at least 1. */
  workers: number;
  busyTimeoutMs?: number;
  /** Options of the workers' extractive generator, as the service's own. */
  extractive?: ExtractiveAnswerGeneratorOptions;
  /**
   * Runs WAL checkpoints on a thread of their own every so many ms (absent or 0: none). SQLite's
   * automatic checkpoint runs inside the commit of the connection that writes, and under chat load
   * it stalled one message insert in a hundred on the event loop (bench/load.js).
   * Told to {@link onCheckpointer}, so the writing connection turns its own off and on.
   */
  checkpointEveryMs?: number;
  /** WAL pages from which the thread checkpoints (default 1000, as SQLite's own). */
  checkpointFromPages?: number;
  /** Called with true when the checkpoint thread runs, false when it stopped (and on close). */
  onCheckpointer?: (running: boolean) => void;
}

type Request = ReadRequest extends infer R ? (R extends ReadRequest ? Omit<R, 'id'> : never) : never;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

class ReadWorker {
  readonly pending = new Map<number, Pending>();
  readonly exited: Promise<void>;

  /** `warms`: this worker reloads emptied term score lists while idle (ReadWorkerData). */
  constructor(
    readonly thread: Worker,
    readonly warms = false,
  ) {
    this.exited = new Promise((resolve) => thread.once('exit', () => resolve()));
  }
}

/**
 * Worker threads that search the chunk index and compose extractive answers, each on its own
 * read-only connection, so that CPU work leaves the event loop and runs on every core. A request
 * goes to the worker with the fewest requests in flight. A worker that dies fails its requests
 * and is replaced. {@link close} ends them all; call it on shutdown.
 */
export class ReadPool {
  private readonly workers: ReadWorker[] = [];
  private nextId = 1;
  private closing = false;
  private checkpointer: ReadWorker | undefined;

  private constructor(private readonly options: ReadPoolOptions) {}

  /** Starts the workers; resolves when every one has opened its connection. */
  static async start(options: ReadPoolOptions): Promise<ReadPool> {
    if (!Number.isInteger(options.workers) || options.workers < 1)
      throw new KbqaError('CONFIG_INVALID', `a read pool needs at least one worker, not ${options.workers}`);
    const pool = new ReadPool(options);
    try {
      // The last one warms term lists while idle; ties in load go to the others first.
      await Promise.all(
        Array.from({ length: options.workers }, (_, i) => pool.spawn(i === options.workers - 1)),
      );
    } catch (e) {
      await pool.close();
      throw e;
    }
    // Without it the writer keeps checkpointing itself, as it always did: not a reason to fail.
    if (options.checkpointEveryMs) await pool.spawnCheckpointer().catch(() => undefined);
    return pool;
  }

  /** Whether the checkpoint thread runs (see ReadPoolOptions.checkpointEveryMs). */
  get checkpointing(): boolean {
    return this.checkpointer !== undefined;
  }

  /** Number of live workers. */
  get size(): number {
    return this.workers.length;
  }

  /** {@link ChunkStore.search} on a worker's connection. */
  search(query: SearchQuery): Promise<SearchHit[]> {
    return this.send('search', { op: 'search', query });
  }

  /** {@link ExtractiveAnswerGenerator.composePieces} on a worker. */
  compose(
    question: string,
    sources: AnswerSource[],
    context?: string,
    unknownWords?: string[],
  ): Promise<string[]> {
    // Only the fields composing reads: a source may carry more than a message can clone.
    const plain = sources.map(({ n, content, title, link, score, headingPath, curated }) => ({
      n,
      content,
      title,
      link,
      score,
      headingPath,
      curated,
    }));
    return this.send('compose', { op: 'compose', question, sources: plain, context, unknownWords });
  }

  /** What each live worker tells of itself, in pool order. */
  stats(): Promise<ReadWorkerStats[]> {
    return Promise.all(this.workers.map((w) => this.sendTo(w, 'stats', { op: 'stats' })));
  }

  /** Ends every worker (each closes its connection first); pending requests fail. */
  async close(): Promise<void> {
    this.closing = true;
    const checkpointer = this.checkpointer;
    if (checkpointer) {
      // The writer checkpoints itself again before the thread that did it is gone.
      this.checkpointer = undefined;
      this.options.onCheckpointer?.(false);
      checkpointer.thread.postMessage({ op: 'close' });
      const timer = setTimeout(() => void checkpointer.thread.terminate(), 2_000);
      await checkpointer.exited;
      clearTimeout(timer);
    }
    const workers = this.workers.splice(0);
    await Promise.all(
      workers.map(async (w) => {
        w.thread.postMessage({ op: 'close' });
        // A worker stuck in a long query is not waited for past a moment.
        const timer = setTimeout(() => void w.thread.terminate(), 2_000);
        await w.exited;
        clearTimeout(timer);
        this.fail(w, new KbqaError('ABORTED', 'the read pool closed'));
      }),
    );
  }

  private send<K extends keyof ReadResults>(op: K, request: Request): Promise<ReadResults[K]> {
    if (this.closing) return Promise.reject(new KbqaError('ABORTED', 'the read pool closed'));
    const worker = this.leastBusy();
    if (!worker) return Promise.reject(new KbqaError('INTERNAL', 'the read pool has no worker'));
    return this.sendTo(worker, op, request);
  }

  private sendTo<K extends keyof ReadResults>(
    worker: ReadWorker,
    _op: K,
    request: Request,
  ): Promise<ReadResults[K]> {
    const id = this.nextId++;
    return new Promise<ReadResults[K]>((resolve, reject) => {
      worker.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.thread.postMessage({ ...request, id });
    });
  }

  /** The worker with the fewest requests in flight; on a tie, one that does not warm lists. */
  private leastBusy(): ReadWorker | undefined {
    let best: ReadWorker | undefined;
    for (const w of this.workers) {
      if (
        !best ||
        w.pending.size < best.pending.size ||
        (w.pending.size === best.pending.size && best.warms && !w.warms)
      )
        best = w;
    }
    return best;
  }

  private spawn(warms: boolean): Promise<void> {
    const data: ReadWorkerData = {
      file: this.options.file,
      busyTimeoutMs: this.options.busyTimeoutMs,
      extractive: this.options.extractive ?? {},
      warmTermLists: warms,
    };
    const worker = new ReadWorker(new Worker(WORKER_FILE, { workerData: data }), warms);
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      worker.thread.on('message', (reply: ReadReply) => {
        if (reply.type === 'ready') {
          ready = true;
          this.workers.push(worker);
          resolve();
          return;
        }
        if (reply.type === 'list') {
          // The list's memory is shared: passing it on copies no entries.
          const { type: _type, ...list } = reply;
          const message: AdoptMessage = { op: 'list', ...list };
          for (const other of this.workers) if (other !== worker) other.thread.postMessage(message);
          return;
        }
        const id = reply.type === 'result' || reply.id !== undefined ? reply.id : undefined;
        if (id === undefined) {
          if (reply.type === 'error' && !ready) reject(KbqaError.from(reply.error));
          return;
        }
        const pending = worker.pending.get(id);
        if (!pending) return;
        worker.pending.delete(id);
        if (reply.type === 'result') pending.resolve(reply.value);
        else pending.reject(KbqaError.from(reply.error));
      });
      worker.thread.on('error', (e) => {
        if (!ready) reject(KbqaError.from(e));
        this.fail(worker, KbqaError.from(e));
      });
      worker.thread.once('exit', (code) => {
        const at = this.workers.indexOf(worker);
        if (at >= 0) this.workers.splice(at, 1);
        if (!ready) reject(new KbqaError('INTERNAL', `a read worker exited (${code}) before it was ready`));
        this.fail(worker, new KbqaError('INTERNAL', `a read worker exited (${code})`));
        // One that died while the pool is open is replaced; its requests have failed.
        if (ready && !this.closing) void this.spawn(worker.warms).catch(() => undefined);
      });
    });
  }

  /** Starts the checkpoint thread; one that dies while the pool is open is replaced. */
  private spawnCheckpointer(): Promise<void> {
    const data: CheckpointWorkerData = {
      file: this.options.file,
      busyTimeoutMs: this.options.busyTimeoutMs,
      everyMs: this.options.checkpointEveryMs!,
      fromPages: this.options.checkpointFromPages ?? SQLITE_AUTOCHECKPOINT_PAGES,
    };
    const worker = new ReadWorker(new Worker(CHECKPOINT_WORKER_FILE, { workerData: data }));
    return new Promise<void>((resolve, reject) => {
      worker.thread.on('message', (reply: ReadReply) => {
        if (reply.type === 'ready') {
          this.checkpointer = worker;
          this.options.onCheckpointer?.(true);
          resolve();
        } else if (reply.type === 'error') reject(KbqaError.from(reply.error));
      });
      worker.thread.on('error', (e) => reject(KbqaError.from(e)));
      worker.thread.once('exit', (code) => {
        reject(new KbqaError('INTERNAL', `the checkpoint thread exited (${code}) before it was ready`));
        if (this.checkpointer !== worker) return;
        this.checkpointer = undefined;
        this.options.onCheckpointer?.(false);
        if (!this.closing) void this.spawnCheckpointer().catch(() => undefined);
      });
    });
  }

  private fail(worker: ReadWorker, error: KbqaError): void {
    for (const p of worker.pending.values()) p.reject(error);
    worker.pending.clear();
  }
}

/**
 * The extractive generator whose answers are composed on the pool's workers; condensing and
 * summarizing (cheap, or not on the chat path) stay on this thread.
 */
export class PooledExtractiveAnswerGenerator extends ExtractiveAnswerGenerator {
  constructor(
    private readonly pool: ReadPool,
    options: ExtractiveAnswerGeneratorOptions = {},
  ) {
    super(options);
  }

  protected override answerPieces(
    question: string,
    sources: AnswerSource[],
    context?: string,
    unknownWords?: string[],
  ): Promise<string[]> {
    // No worker left (the pool closed, or a dead worker's replacement could not start): this
    // thread composes, slower under load but still answering.
    if (this.pool.size === 0) return super.answerPieces(question, sources, context, unknownWords);
    return this.pool.compose(question, sources, context, unknownWords);
  }
}
