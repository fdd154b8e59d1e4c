import { KbqaError, type VectorStore } from '@kbqa/core';
import {
  cachedDimension,
  EMBEDDING_MODELS,
  embeddingProfile,
  isModelCached,
  type ModelProgress,
  pullModel,
  RERANK_MODELS,
  rerankerProfile,
  resolveEmbedding,
  TransformersEmbedder,
} from '@kbqa/embedder';
import { listLlmModels } from './cli-llm-models';
import type { AppConfig } from './config/config';
import { embedPending } from './retrieval/embed-pending';

/** A one-line progress bar on stderr: redrawn in place on a terminal, a line per 10% otherwise. */
export class ProgressBar {
  private lastDecile = -1;
  private readonly startedAt = Date.now();

  constructor(
    private readonly label: string,
    private readonly enabled: boolean,
    private readonly unit = '',
  ) {}

  update(done: number, total: number): void {
    if (!this.enabled) return;
    const share = total > 0 ? Math.min(1, done / total) : 1;
    const width = 30;
    const filled = Math.round(share * width);
    const seconds = (Date.now() - this.startedAt) / 1000;
    const rate = seconds > 0 && this.unit ? `  ${Math.round(done / seconds)} ${this.unit}/s` : '';
    const amount = this.unit ? `${done}/${total} ${this.unit}` : `${formatBytes(done)}/${formatBytes(total)}`;
    const line = `${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(share * 100)}%  ${amount}${rate}`;
    if (process.stderr.isTTY) {
      process.stderr.write(`\r${line}\u001b[K`);
    } else {
      const decile = Math.floor(share * 10);
      if (decile === this.lastDecile) return;
      this.lastDecile = decile;
      process.stderr.write(`${line}\n`);
    }
  }

  finish(): void {
    if (this.enabled && process.stderr.isTTY) process.stderr.write('\n');
  }
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  if (n >= 1024) return `${(n / 1024).toFixed(0)} kB`;
  return `${n} B`;
}

export interface CommandOutput {
  text: string;
  json: unknown;
}

/**
 * `kbqa models pull [id] [--rerank]`: downloads a model into KBQA_MODELS_DIR and checks that it
 * loads. Without an id it pulls the configured embedder and, when KBQA_RERANK_MODEL is set, the
 * reranker. An id is pulled as a reranker with `--rerank`, when it is KBQA_RERANK_MODEL, or when
 * it is a reranker of the model table.
 */
export async function pullCommand(
  config: AppConfig,
  id: string | undefined,
  quiet: boolean,
  rerank = false,
): Promise<CommandOutput> {
  if (config.embedding.offline) {
    throw new KbqaError(
      'BAD_REQUEST',
      'KBQA_OFFLINE is set, so nothing can be downloaded; unset it to pull a model',
    );
  }
  const wanted: { model: string; kind: 'embedder' | 'reranker' }[] = [];
  if (id !== undefined) {
    const asReranker = rerank || id === config.embedding.rerank.model || rerankerProfile(id) !== undefined;
    wanted.push({ model: id, kind: asReranker ? 'reranker' : 'embedder' });
  } else {
    if (config.embedding.model.toLowerCase() !== 'none')
      wanted.push({ model: config.embedding.model, kind: 'embedder' });
    if (config.embedding.rerank.model)
      wanted.push({ model: config.embedding.rerank.model, kind: 'reranker' });
  }
  if (wanted.length === 0)
    throw new KbqaError('BAD_REQUEST', 'models pull needs a model id (KBQA_EMBED_MODEL is none)');
  const pulled: { model: string; kind: string; dimension: number | null }[] = [];
  for (const { model, kind } of wanted) {
    const bar = new ProgressBar(`pulling ${model}`, !quiet);
    const { dimension } = await pullModel(model, {
      modelsDir: config.embedding.modelsDir,
      remoteHost: config.embedding.remoteHost,
      command: config.command,
      kind,
      onProgress: (p: ModelProgress) => {
        if (p.type === 'total') bar.update(p.loaded, p.total);
      },
    });
    bar.finish();
    pulled.push({ model, kind, dimension: kind === 'embedder' ? dimension : null });
  }
  const text = pulled
    .map((p) =>
      p.kind === 'embedder'
        ? `model ${p.model} ready in ${config.embedding.modelsDir} (${p.dimension} dimensions)`
        : `reranker ${p.model} ready in ${config.embedding.modelsDir}`,
    )
    .join('\n');
  const [first] = pulled;
  // The single-model fields stay for scripts written against the earlier output.
  return {
    text,
    json: {
      model: first?.model,
      dimension: first?.dimension,
      models_dir: config.embedding.modelsDir,
      pulled,
    },
  };
}

/**
 * `kbqa models list`: the configured embedder and reranker with what the service will do with
 * them (dimensions, prefixes, pooling) and whether they are cached, then every model of the
 * table, then the local chat models (KBQA_LLM=local). Reads no database and downloads nothing.
 */
export function listModelsCommand(config: AppConfig): CommandOutput {
  const dir = config.embedding.modelsDir;
  const llm = listLlmModels(config);
  const embedding = (model: string, configured: boolean) => {
    const profile = embeddingProfile(model);
    const resolved = resolveEmbedding(model);
    return {
      role: 'embedding',
      model,
      configured,
      known: resolved.known,
      dimension: profile?.dimension ?? cachedDimension(model, dir) ?? null,
      pooling: resolved.pooling,
      normalize: resolved.normalize,
      query_prefix: resolved.queryPrefix,
      document_prefix: resolved.documentPrefix,
      mteb_retrieval_ndcg10: profile?.retrieval?.ndcgAt10 ?? null,
      cached: isModelCached(model, dir),
    };
  };
  const reranker = (model: string, configured: boolean) => ({
    role: 'reranker',
    model,
    configured,
    known: rerankerProfile(model) !== undefined,
    cached: isModelCached(model, dir),
  });
  const configured = [
    ...(config.embedding.model.toLowerCase() === 'none' ? [] : [embedding(config.embedding.model, true)]),
    ...(config.embedding.rerank.model
      ? [
          {
            ...reranker(config.embedding.rerank.model, true),
            top: config.embedding.rerank.top,
            budget_ms: config.embedding.rerank.budgetMs,
          },
        ]
      : []),
  ];
  const known = [
    ...EMBEDDING_MODELS.map((p) => embedding(p.id, false)),
    ...RERANK_MODELS.map((p) => reranker(p.id, false)),
  ].filter((k) => !configured.some((c) => c.model === k.model));
  const line = (m: {
    role: string;
    model: string;
    cached: boolean;
    dimension?: number | null;
    pooling?: string;
    query_prefix?: string;
    document_prefix?: string;
  }) =>
    `  ${m.model}  ${m.role}${m.dimension ? `, ${m.dimension} dims` : ''}` +
    `${m.pooling ? `, ${m.pooling} pooling` : ''}` +
    `${m.query_prefix ? `, query prefix "${m.query_prefix}"` : ''}` +
    `${m.document_prefix ? `, document prefix "${m.document_prefix}"` : ''}, ${m.cached ? 'cached' : 'not cached'}`;
  const text = [
    `Models directory: ${dir}`,
    'Configured:',
    ...(configured.length ? configured.map(line) : ['  none (KBQA_EMBED_MODEL=none, no KBQA_RERANK_MODEL)']),
    'Also known (set KBQA_EMBED_MODEL or KBQA_RERANK_MODEL to use one):',
    ...known.map(line),
    ...llm.text,
  ].join('\n');
  return { text, json: { models_dir: dir, configured, known, llm: llm.json } };
}

/**
 * `kbqa reindex [--project id]`: embeds every chunk without a vector with the configured model.
 * When the index was built by another model (or none), it is reset first, which re-embeds all
 * projects: one index holds one model's vectors.
 */
export async function reindexCommand(
  config: AppConfig,
  vectors: VectorStore,
  projectId: number | undefined,
  quiet: boolean,
): Promise<CommandOutput> {
  if (config.embedding.model.toLowerCase() === 'none') {
    throw new KbqaError(
      'BAD_REQUEST',
      'KBQA_EMBED_MODEL is none: set it to a model id or folder to build vectors',
    );
  }
  const embedder = await TransformersEmbedder.load({
    model: config.embedding.model,
    modelsDir: config.embedding.modelsDir,
    offline: config.embedding.offline,
    remoteHost: config.embedding.remoteHost,
    command: config.command,
  });
  try {
    const meta = await vectors.meta();
    let reset = false;
    if (meta && (meta.embedderId !== embedder.id || meta.dimension !== embedder.dimension)) {
      if (projectId !== undefined) {
        throw new KbqaError(
          'INDEX_MISMATCH',
          `the index holds vectors of ${meta.embedderId}; changing the model re-embeds every project, so run \`${config.command} reindex\` without --project`,
        );
      }
      await vectors.reset(embedder.id, embedder.dimension);
      reset = true;
    } else {
      await vectors.attach(embedder.id, embedder.dimension);
    }
    const bar = new ProgressBar(`embedding with ${embedder.id}`, !quiet, 'chunks');
    const startedAt = Date.now();
    const embedded = await embedPending(embedder, vectors, {
      projectId,
      onProgress: (done, total) => bar.update(done, total),
    });
    bar.finish();
    const seconds = (Date.now() - startedAt) / 1000;
    const scope = projectId === undefined ? 'all projects' : `project ${projectId}`;
    return {
      text: `embedded ${embedded} chunks of ${scope} with ${embedder.id} in ${seconds.toFixed(1)} s${reset ? ' (index rebuilt for the new model)' : ''}`,
      json: {
        model: embedder.id,
        dimension: embedder.dimension,
        project_id: projectId ?? null,
        embedded,
        vectors: await vectors.countVectors(projectId),
        reset,
        seconds,
      },
    };
  } finally {
    await embedder.close();
  }
}
