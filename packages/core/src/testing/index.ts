export * from './fake-embedder';
export * from './loader-contract';
