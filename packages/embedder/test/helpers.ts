import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The compiled worker: jest runs the sources, but worker threads need JavaScript. */
export const WORKER_PATH = path.join(__dirname, '..', 'dist', 'embed.worker.js');

export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] ?? 0) * (b[i] ?? 0);
  return dot;
}

export function norm(a: Float32Array): number {
  return Math.sqrt(cosine(a, a));
}
