export * from './transformers.embedder';
export * from './embedder.host';
export * from './pull-model';
export * from './model-errors';
export type { EmbedDtype, ModelProgress } from './worker-protocol';
