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
  port.on('message', (message: ReadRequest | CloseMessage | AdoptMessage) => {
    if (message.op === 'close') {
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
        return Promise.resolve(generator.composePieces(request.question, request.sources, request.context));
      case 'stats':
        return Promise.resolve({ termCacheEntries: index.termCacheEntries });
    }
  }
}

main();
