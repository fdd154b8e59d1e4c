import { statSync } from 'node:fs';
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
  // As SQLite's automatic checkpoint, only once the WAL holds `fromPages` pages (each frame is a
  // page and a 24-byte header after the file's 32-byte header), so the files take the room on disk
  // they took before. The file keeps its size when the WAL starts over, so past that size this
  // checkpoints every tick, which costs nothing when there is nothing to copy.
  const pageSize = Number(db.pragma('page_size', { simple: true }));
  const fromBytes = 32 + data.fromPages * (pageSize + 24);
  const wal = `${data.file}-wal`;
  const timer = setInterval(() => {
    // A checkpoint that fails (the disk is full, another one runs) is tried again next time;
    // the WAL only grows meanwhile, and nothing committed is lost.
    try {
      if (statSync(wal).size >= fromBytes) checkpoint(db);
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
