import { parentPort, workerData } from 'node:worker_threads';
import type * as Transformers from '@huggingface/transformers' with { 'resolution-mode': 'import' };
import type { FromWorker, ModelProgress, ToWorker, WorkerSettings } from './worker-protocol';

// The package is ESM-first; its CommonJS build is the one that loads in a CommonJS worker, and
// only types can be imported across the module-format boundary.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const transformers = require('@huggingface/transformers') as typeof Transformers;

type Extractor = Transformers.FeatureExtractionPipeline;

const port = parentPort;
if (!port) throw new Error('embed.worker must run in a worker thread');
const settings = workerData as WorkerSettings;

function send(message: FromWorker, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function toProgress(info: Transformers.ProgressInfo): ModelProgress | undefined {
  switch (info.status) {
    case 'initiate':
      return { type: 'file', file: info.file, status: 'start' };
    case 'done':
      return { type: 'file', file: info.file, status: 'done' };
    case 'progress':
      return { type: 'bytes', file: info.file, loaded: info.loaded, total: info.total };
    case 'progress_total':
      return { type: 'total', loaded: info.loaded, total: info.total, percent: info.progress };
    case 'download':
    case 'ready':
      return undefined;
  }
}

async function load(): Promise<Extractor> {
  const { env, LogLevel, pipeline } = transformers;
  // transformers.js warns on every missing local file before it tries the next place; the host
  // reports one clear message instead.
  env.logLevel = LogLevel.ERROR;
  env.allowLocalModels = true;
  env.allowRemoteModels = !settings.offline;
  env.localModelPath = settings.modelsDir;
  env.cacheDir = settings.modelsDir;
  env.useFSCache = true;
  if (settings.remoteHost) env.remoteHost = settings.remoteHost;
  return pipeline('feature-extraction', settings.model, {
    dtype: settings.dtype,
    progress_callback: settings.reportProgress
      ? (info: Transformers.ProgressInfo) => {
          const progress = toProgress(info);
          if (progress) send({ type: 'progress', progress });
        }
      : undefined,
  });
}

async function embed(extractor: Extractor, texts: string[]): Promise<{ data: Float32Array; count: number }> {
  const output = await extractor(texts, { pooling: 'mean', normalize: true });
  // A fresh copy owns its buffer, so it can be transferred instead of cloned.
  return { data: Float32Array.from(output.data as Float32Array), count: texts.length };
}

async function main(): Promise<void> {
  let extractor: Extractor;
  let dimension: number;
  try {
    extractor = await load();
    const probe = await embed(extractor, ['dimension probe']);
    dimension = probe.data.length;
  } catch (error) {
    send({ type: 'load-failed', reason: reasonOf(error) });
    return;
  }
  // The main thread sends one batch at a time, so batches never run concurrently here.
  port?.on('message', (message: ToWorker) => {
    embed(extractor, message.texts).then(
      ({ data, count }) =>
        send({ type: 'vectors', id: message.id, data, count }, [data.buffer as ArrayBuffer]),
      (error: unknown) => send({ type: 'embed-failed', id: message.id, reason: reasonOf(error) }),
    );
  });
  send({ type: 'ready', dimension });
}

void main();
