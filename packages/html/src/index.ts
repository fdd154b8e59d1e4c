export { extractContent } from './extract';
export type { ExtractedPage, ExtractOptions } from './extract';
export type { DomImplementation } from './dom';
export type { LinkStyle } from './markdown';
