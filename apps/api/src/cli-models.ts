import { KbqaError, type VectorStore } from '@kbqa/core';
import { type ModelProgress, pullModel, TransformersEmbedder } from '@kbqa/embedder';
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

/** `kbqa models pull [id]`: downloads a model into KBQA_MODELS_DIR and checks that it loads. */
export async function pullCommand(
  config: AppConfig,
  id: string | undefined,
  quiet: boolean,
): Promise<CommandOutput> {
  const model = id ?? config.embedding.model;
  if (model.toLowerCase() === 'none')
    throw new KbqaError('BAD_REQUEST', 'models pull needs a model id (KBQA_EMBED_MODEL is none)');
  if (config.embedding.offline) {
    throw new KbqaError(
      'BAD_REQUEST',
      'KBQA_OFFLINE is set, so nothing can be downloaded; unset it to pull a model',
    );
  }
  const bar = new ProgressBar(`pulling ${model}`, !quiet);
  const { dimension } = await pullModel(model, {
    modelsDir: config.embedding.modelsDir,
    remoteHost: config.embedding.remoteHost,
    onProgress: (p: ModelProgress) => {
      if (p.type === 'total') bar.update(p.loaded, p.total);
    },
  });
  bar.finish();
  return {
    text: `model ${model} ready in ${config.embedding.modelsDir} (${dimension} dimensions)`,
    json: { model, dimension, models_dir: config.embedding.modelsDir },
  };
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
  });
  try {
    const meta = await vectors.meta();
    let reset = false;
    if (meta && (meta.embedderId !== embedder.id || meta.dimension !== embedder.dimension)) {
      if (projectId !== undefined) {
        throw new KbqaError(
          'INDEX_MISMATCH',
          `the index holds vectors of ${meta.embedderId}; changing the model re-embeds every project, so run \`pnpm kbqa reindex\` without --project`,
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
