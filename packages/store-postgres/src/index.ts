export * from './chunk-store';
export * from './metadata-filter';
export * from './migrations';
export * from './text-search';
export * from './vector-store';
export * from './pool';
export * from './request-records';
export * from './copy-sqlite';
