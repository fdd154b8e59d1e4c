export { markdownToHtml } from './markdown-to-html';
export { CHROME_PHRASES, readCorpus, renderDocsSite, renderSitemap } from './render-site';
export type { CorpusPage, RenderSiteOptions } from './render-site';
export { startSiteServer } from './site-server';
export type { SiteFile, SiteServer, SiteServerOptions } from './site-server';
