export {
  WebsiteCrawlerLoader,
  type CrawlExtractFn,
  type WebsiteCrawlerOptions,
} from './website-crawler.loader';
export { nonHtmlExtension, normalizeUrl, pathMatcher } from '@kbqa/html';
