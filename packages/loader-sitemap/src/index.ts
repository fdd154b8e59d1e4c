export { SitemapLoader, type SitemapLoaderOptions } from './sitemap.loader';
export {
  readSitemap,
  parseSitemap,
  looksLikeSitemap,
  decodeXmlText,
  type SitemapLimits,
} from './sitemap.reader';
export type { ExtractFn, PageContent } from '@kbqa/html';
