export { extractContent } from './extract';
export type { ExtractedPage, ExtractOptions } from './extract';
export type { DomImplementation } from './dom';
export type { LinkStyle } from './markdown';
export {
  decodeHtml,
  defaultExtract,
  HTML_ACCEPT,
  isHtml,
  JS_ONLY_MESSAGE,
  pageDocument,
  pageProblem,
  type ExtractFn,
  type PageContent,
} from './page-document';
export { nonHtmlExtension, normalizeUrl, pathMatcher, validateSiteRequest } from './url-rules';
export {
  emptyPageReason,
  fetchSitePage,
  SeenContent,
  SitePageIndex,
  sitePageKey,
  siteLoaderSettings,
  usableCanonical,
  type SiteExtractFn,
  type SitePageOutcome,
  type SiteLoaderOptions,
  type SiteLoaderSettings,
} from './site-pages';
