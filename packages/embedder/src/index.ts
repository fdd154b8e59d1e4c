export * from './transformers.embedder';
export * from './embedder.host';
export * from './pull-model';
export * from './model-errors';
export * from './model-profiles';
export type { EmbedDtype, ModelProgress } from './worker-protocol';
