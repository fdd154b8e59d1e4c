import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { KbqaError } from '@kbqa/core';
import { describe, inspectModelFile, type LocalModelFileInfo } from './model-file';

export interface PullLocalModelOptions {
  url: string;
  /** Where the model ends up; the download goes to `<target>.partial` until it is checked. */
  target: string;
  /** Checked when given: a file with another sum is deleted, never installed. */
  sha256?: string;
  /** Bytes so far and in all (0 while unknown). */
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
  /** Injectable for tests; Node's global fetch otherwise. */
  fetch?: typeof fetch;
}

export interface PulledLocalModel {
  info: LocalModelFileInfo;
  sha256: string;
  /** Bytes that an earlier, interrupted pull had already fetched. */
  resumedFrom: number;
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Downloads a GGUF model. An interrupted download resumes where it stopped (an HTTP range request
 * for the rest of `<target>.partial`; a server that ignores ranges sends it all again). The file
 * is checked before it takes its name: the sha256 when known, then the GGUF checks of
 * {@link inspectModelFile}; a file that fails either is deleted.
 * @throws KbqaError `MODEL_UNAVAILABLE` (download failed, checks failed) or `ABORTED`.
 */
export async function pullLocalModel(options: PullLocalModelOptions): Promise<PulledLocalModel> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const partial = `${options.target}.partial`;
  await mkdir(dirname(options.target), { recursive: true });
  const have = await sizeOf(partial);
  let response: Response;
  try {
    response = await fetchImpl(options.url, {
      headers: have > 0 ? { range: `bytes=${have}-` } : {},
      signal: options.signal,
      redirect: 'follow',
    });
  } catch (error) {
    if (options.signal?.aborted) throw new KbqaError('ABORTED', 'The model download was aborted');
    throw new KbqaError('MODEL_UNAVAILABLE', `Cannot download ${options.url}: ${describe(error)}`, {
      cause: error,
    });
  }
  // The partial file already holds everything the server has: only the checks are left.
  const complete = response.status === 416 && have > 0;
  if (!response.ok && !complete) {
    throw new KbqaError('MODEL_UNAVAILABLE', `Cannot download ${options.url}: HTTP ${response.status}`);
  }
  const resumed = response.status === 206;
  const resumedFrom = resumed ? have : 0;
  if (!complete) {
    const length = Number(response.headers.get('content-length') ?? 0);
    const total = resumed
      ? Number(/\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1] ?? have + length)
      : length;
    let done = resumedFrom;
    options.onProgress?.(done, total);
    if (!response.body) throw new KbqaError('MODEL_UNAVAILABLE', `${options.url} sent no body`);
    const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
    body.on('data', (chunk: Buffer) => {
      done += chunk.length;
      options.onProgress?.(done, total);
    });
    try {
      await pipeline(body, createWriteStream(partial, { flags: resumed ? 'a' : 'w' }));
    } catch (error) {
      // The bytes so far stay in the partial file for the next pull to resume from.
      if (options.signal?.aborted) throw new KbqaError('ABORTED', 'The model download was aborted');
      throw new KbqaError(
        'MODEL_UNAVAILABLE',
        `The download of ${options.url} broke off (run the pull again to resume): ${describe(error)}`,
        { cause: error },
      );
    }
  }
  const sha256 = await sha256File(partial);
  if (options.sha256 !== undefined && sha256 !== options.sha256.toLowerCase()) {
    await rm(partial, { force: true });
    throw new KbqaError(
      'MODEL_UNAVAILABLE',
      `The file downloaded from ${options.url} has sha256 ${sha256}, not the expected ${options.sha256}; it was deleted`,
    );
  }
  let info: LocalModelFileInfo;
  try {
    info = await inspectModelFile(partial);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  await rename(partial, options.target);
  return { info: { ...info, path: options.target }, sha256, resumedFrom };
}
