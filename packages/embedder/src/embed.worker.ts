import { parentPort, workerData } from 'node:worker_threads';
import type * as Transformers from '@huggingface/transformers' with { 'resolution-mode': 'import' };
import type { EmbedDtype, FromWorker, ModelProgress, ToWorker, WorkerSettings } from './worker-protocol';

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

function configure(): void {
  const { env, LogLevel } = transformers;
  // transformers.js warns on every missing local file before it tries the next place; the host
  // reports one clear message instead.
  env.logLevel = LogLevel.ERROR;
  env.allowLocalModels = true;
  env.allowRemoteModels = !settings.offline;
  env.localModelPath = settings.modelsDir;
  env.cacheDir = settings.modelsDir;
  env.useFSCache = true;
  if (settings.remoteHost) env.remoteHost = settings.remoteHost;
}

const progressCallback = settings.reportProgress
  ? (info: Transformers.ProgressInfo) => {
      const progress = toProgress(info);
      if (progress) send({ type: 'progress', progress });
    }
  : undefined;

/**
 * Loads with the wanted quantization, then with the other one: some exports ship only
 * `model.onnx` or only `model_quantized.onnx`, and a model that loads beats one that does not.
 * The first error is the one reported when both fail.
 */
async function withDtypeFallback<T>(
  loadAs: (dtype: EmbedDtype) => Promise<T>,
): Promise<{ value: T; dtype: EmbedDtype }> {
  try {
    return { value: await loadAs(settings.dtype), dtype: settings.dtype };
  } catch (first) {
    const other: EmbedDtype = settings.dtype === 'q8' ? 'fp32' : 'q8';
    try {
      return { value: await loadAs(other), dtype: other };
    } catch {
      throw first;
    }
  }
}

function load(model: string): Promise<{ value: Extractor; dtype: EmbedDtype }> {
  return withDtypeFallback((dtype) =>
    transformers.pipeline('feature-extraction', model, { dtype, progress_callback: progressCallback }),
  );
}

async function embed(extractor: Extractor, texts: string[]): Promise<{ data: Float32Array; count: number }> {
  const output = await extractor(texts, { pooling: settings.pooling, normalize: settings.normalize });
  // A fresh copy owns its buffer, so it can be transferred instead of cloned.
  return { data: Float32Array.from(output.data as Float32Array), count: texts.length };
}

interface CrossEncoder {
  tokenizer: Transformers.PreTrainedTokenizer;
  model: Transformers.PreTrainedModel;
}

async function loadCrossEncoder(model: string): Promise<CrossEncoder> {
  const { AutoTokenizer, AutoModelForSequenceClassification } = transformers;
  const tokenizer = await AutoTokenizer.from_pretrained(model, { progress_callback: progressCallback });
  const { value: classifier } = await withDtypeFallback((dtype) =>
    AutoModelForSequenceClassification.from_pretrained(model, { dtype, progress_callback: progressCallback }),
  );
  return { tokenizer, model: classifier };
}

/** Pairs per forward pass: each pass is padded to its longest pair, so small batches waste less. */
const RERANK_BATCH = 8;

class DeadlinePassed extends Error {}

/**
 * One relevance logit per (query, text) pair, in input order, higher is more relevant. Pairs
 * run shortest first in batches of {@link RERANK_BATCH}, so a long chunk pads only its own batch.
 * Past `deadline` (epoch ms; the caller has stopped waiting) it stops between batches, so a slow
 * reranker holds the worker, and the queries queued behind it, for at most one batch longer.
 */
async function rerank(
  encoder: CrossEncoder,
  query: string,
  texts: string[],
  deadline = Infinity,
): Promise<number[]> {
  const order = texts.map((text, i) => ({ text, i })).sort((a, b) => a.text.length - b.text.length);
  const scores = new Array<number>(texts.length).fill(0);
  for (let start = 0; start < order.length; start += RERANK_BATCH) {
    if (Date.now() > deadline) throw new DeadlinePassed('the rerank budget ran out');
    const batch = order.slice(start, start + RERANK_BATCH);
    const inputs = encoder.tokenizer(
      batch.map(() => query),
      { text_pair: batch.map((b) => b.text), padding: true, truncation: true },
    );
    const { logits } = (await encoder.model(inputs)) as { logits: Transformers.Tensor };
    const data = logits.data as Float32Array;
    // Single-logit heads (MS MARCO cross-encoders, bge-reranker) give [n, 1]; a two-class head
    // gives [n, 2], whose last column is "relevant".
    const width = Number(logits.dims[1] ?? 1);
    batch.forEach((b, j) => (scores[b.i] = data[j * width + width - 1] ?? 0));
  }
  return scores;
}

async function main(): Promise<void> {
  configure();
  let extractor: Extractor | undefined;
  let dimension = 0;
  let dtype = settings.dtype;
  try {
    if (settings.model !== undefined) {
      ({ value: extractor, dtype } = await load(settings.model));
      const probe = await embed(extractor, ['dimension probe']);
      dimension = probe.data.length;
    }
  } catch (error) {
    send({ type: 'load-failed', reason: reasonOf(error) });
    return;
  }
  let encoder: CrossEncoder | undefined;
  // The main thread sends one job at a time, so jobs never run concurrently here.
  port?.on('message', (message: ToWorker) => {
    const fail = (error: unknown): void =>
      send({ type: 'embed-failed', id: message.id, reason: reasonOf(error) });
    if (message.type === 'rerank') {
      if (!encoder) return fail(new Error('no reranker is loaded'));
      rerank(encoder, message.query, message.texts, message.deadline).then(
        (scores) => send({ type: 'scores', id: message.id, scores }),
        fail,
      );
      return;
    }
    if (!extractor) return fail(new Error('no embedding model is loaded'));
    embed(extractor, message.texts).then(
      ({ data, count }) =>
        send({ type: 'vectors', id: message.id, data, count }, [data.buffer as ArrayBuffer]),
      fail,
    );
  });
  send({ type: 'ready', dimension, dtype });
  // After `ready`, so a slow reranker download never delays embedding.
  if (settings.rerankModel === undefined) return;
  try {
    encoder = await loadCrossEncoder(settings.rerankModel);
    await rerank(encoder, 'probe', ['probe']);
    send({ type: 'rerank-ready' });
  } catch (error) {
    send({ type: 'rerank-load-failed', reason: reasonOf(error) });
  }
}

void main();
