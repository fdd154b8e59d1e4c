export { extractContent } from './extract';
export type { ExtractedPage, ExtractOptions } from './extract';
export type { DomImplementation } from './dom';
export type { LinkStyle } from './markdown';
export {
  decodeHtml,
  defaultExtract,
  HTML_ACCEPT,
  isGone,
  isHtml,
  JS_ONLY_MESSAGE,
  pageDocument,
  pageProblem,
  type ExtractFn,
  type PageContent,
} from './page-document';
export {
  nonHtmlExtension,
  normalizeUrl,
  pathMatcher,
  reportUnmatchedPaths,
  validateSiteRequest,
  type PathMatcher,
} from './url-rules';
export {
  conditionalHeaders,
  emptyPageReason,
  isUnchanged,
  fetchSitePage,
  SeenContent,
  SitePageIndex,
  sitePageKey,
  siteLoaderSettings,
  responseVersion,
  usableCanonical,
  type SiteExtractFn,
  type SitePageOutcome,
  type SiteLoaderOptions,
  type SiteLoaderSettings,
} from './site-pages';
