export * from './chunk-index';
export * from './data-source';
export * from './entities';
export * from './fts-query';
export * from './metadata-filter';
export * from './migrations';
export * from './time';
