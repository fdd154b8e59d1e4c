import { parentPort, workerData } from 'node:worker_threads';
import { KbqaError } from '@kbqa/core';
import { checkpoint, openCheckpointConnection } from '@kbqa/store-sqlite';
import type { CheckpointWorkerData, CloseMessage, ReadReply } from './protocol';

/**
 * The pool's checkpointer: its own connection, a PASSIVE checkpoint every `everyMs`, so the
 * service's writing connection can leave SQLite's automatic checkpoints off (see
 * ReadPoolOptions.checkpointEveryMs).
 */
function main(): void {
  const port = parentPort;
  if (!port) throw new Error('checkpoint-worker runs as a worker thread');
  const data = workerData as CheckpointWorkerData;
  const send = (reply: ReadReply): void => port.postMessage(reply);
  let db: ReturnType<typeof openCheckpointConnection>;
  try {
    db = openCheckpointConnection({ file: data.file, busyTimeoutMs: data.busyTimeoutMs });
  } catch (e) {
    send({ type: 'error', error: KbqaError.from(e).toJSON() });
    return;
  }
  const timer = setInterval(() => {
    // A checkpoint that fails (the disk is full, another one runs) is tried again next time;
    // the WAL only grows meanwhile, and nothing committed is lost.
    try {
      checkpoint(db);
    } catch {
      // next tick
    }
  }, data.everyMs);
  port.on('message', (message: CloseMessage) => {
    if (message.op !== 'close') return;
    clearInterval(timer);
    try {
      checkpoint(db);
    } finally {
      db.close();
      port.close();
    }
  });
  send({ type: 'ready' });
}

main();
