export * from './docs-corpus';
export * from './fake-embedder';
export * from './loader-contract';
export * from './test-server';
export * from './chunk-store-contract';
export * from './request-records-contract';
export * from './projects-records-contract';
