export { UrlLoader, type UrlLoaderOptions } from './url.loader';
export { decodeHtml, isHtml, pageDocument, type ExtractFn, type PageContent } from '@kbqa/html';
