import { parentPort, workerData } from 'node:worker_threads';
import { ExtractiveAnswerGenerator } from '@kbqa/answer';
import { KbqaError } from '@kbqa/core';
import { openReadConnection, SqliteChunkIndex } from '@kbqa/store-sqlite';
import type { AdoptMessage, CloseMessage, ReadReply, ReadRequest, ReadWorkerData } from './protocol';

/**
 * One read worker: its own read-only connection (WAL: it reads while the service's connection
 * writes, and sees each write once committed), a chunk index on it, and an extractive generator.
 * Requests are answered one at a time, in order; the pool spreads them over the workers.
 */
/** How often an idle warming worker looks for lists to reload, and how long one slice reads. */
const WARM_EVERY_MS = 500;
const WARM_SLICE_MS = 20;

function main(): void {
  const port = parentPort;
  if (!port) throw new Error('read-worker runs as a worker thread');
  const data = workerData as ReadWorkerData;
  const send = (reply: ReadReply): void => port.postMessage(reply);
  let db: ReturnType<typeof openReadConnection>;
  let index: SqliteChunkIndex;
  try {
    db = openReadConnection({ file: data.file, busyTimeoutMs: data.busyTimeoutMs });
    // Each list it loads goes to the other workers (through the pool), so a word's list is read
    // from FTS5 once for the pool, not once per worker.
    index = new SqliteChunkIndex(db, undefined, {
      onTermList: (key, generation, list) =>
        send({ type: 'list', key, generation, ids: list.ids, scores: list.scores }),
    });
  } catch (e) {
    send({ type: 'error', error: KbqaError.from(e).toJSON() });
    return;
  }
  const generator = new ExtractiveAnswerGenerator(data.extractive);
  // Warm-up in slices, each its own turn, so a request waits for at most one list being read.
  let warmTimer: NodeJS.Timeout | undefined;
  const warm = (): void => {
    let more = false;
    try {
      more = index.warmTermLists(WARM_SLICE_MS);
    } catch {
      // A failed read is retried at the next tick; searches load what they need themselves.
    }
    warmTimer = setTimeout(warm, more ? 0 : WARM_EVERY_MS);
    warmTimer.unref();
  };
  if (data.warmTermLists) {
    warmTimer = setTimeout(warm, WARM_EVERY_MS);
    warmTimer.unref();
  }
  port.on('message', (message: ReadRequest | CloseMessage | AdoptMessage) => {
    if (message.op === 'close') {
      clearTimeout(warmTimer);
      db.close();
      port.close();
      return;
    }
    if (message.op === 'list') {
      index.adoptTermList(message.key, message.generation, { ids: message.ids, scores: message.scores });
      return;
    }
    // The store's search is synchronous on SQLite (its promise is already settled).
    void handle(message).then(
      (value) => send({ type: 'result', id: message.id, value }),
      (e: unknown) => send({ type: 'error', id: message.id, error: KbqaError.from(e).toJSON() }),
    );
  });
  send({ type: 'ready' });

  function handle(request: ReadRequest): Promise<unknown> {
    switch (request.op) {
      case 'search':
        return index.search(request.query);
      case 'compose':
        return Promise.resolve(
          generator.composePieces(request.question, request.sources, request.context, request.unknownWords),
        );
      case 'stats':
        return Promise.resolve({
          termCacheEntries: index.termCacheEntries,
          termListsGeneration: index.termListsGeneration,
        });
    }
  }
}

main();
