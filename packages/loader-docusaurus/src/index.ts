export {
  DocusaurusLoader,
  type DocusaurusExtractFn,
  type DocusaurusLoaderOptions,
} from './docusaurus.loader';
export { parseSitemap, readSitemap, type SitemapLimits } from './sitemap.reader';
