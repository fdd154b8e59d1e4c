export { SitemapLoader, type SitemapLoaderOptions } from './sitemap.loader';
export { readSitemap, parseSitemap, decodeXmlText, type SitemapLimits } from './sitemap.reader';
export type { ExtractFn, PageContent } from './page.document';
