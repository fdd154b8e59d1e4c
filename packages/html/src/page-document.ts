// What the page loaders (url, sitemap) share: fetch response to LoadedDocument.
import {
  KbqaError,
  type FetchResponse,
  type LoadedDocument,
  type PageVersionHints,
  type SkipCode,
  versionHintMetadata,
} from '@kbqa/core';
import { extractContent } from './extract';
import { responseVersion, sitePageKey, usableCanonical } from './site-pages';

/** What the loader needs from HTML extraction; @kbqa/html's `extractContent` by default. */
export interface PageContent {
  title: string;
  markdown: string;
  canonicalUrl: string | undefined;
  /** Characters of real text in `markdown`. */
  textLength: number;
  /** The page seems rendered client-side (scripts, `<noscript>`, empty app root, little text). */
  needsJavaScript: boolean;
  /** The version the page names in its meta tags. */
  versionHints?: PageVersionHints;
}

export type ExtractFn = (html: string, url: string) => PageContent;

export const defaultExtract: ExtractFn = (html, url) => extractContent(html, url);

export const HTML_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1';
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

export const JS_ONLY_MESSAGE = 'no extractable content; the page may need JavaScript';

/** Whether a response is an HTML page; an unlabelled body counts when it starts like markup. */
export function isHtml(res: FetchResponse): boolean {
  if (HTML_TYPES.has(res.contentType)) return true;
  if (res.contentType !== '') return false;
  const head = res.body.subarray(0, 512).toString('latin1').trimStart().toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html');
}

/** Why a response is not a page to extract (status or type), with its skip code; undefined for a page. */
export function pageProblem(res: FetchResponse): { code: SkipCode; reason: string } | undefined {
  if (isGone(res.status)) return { code: 'GONE', reason: `HTTP ${res.status}` };
  if (res.status < 200 || res.status >= 300) return { code: 'FAILED', reason: `HTTP ${res.status}` };
  if (isHtml(res)) return undefined;
  return { code: 'NOT_HTML', reason: `not an HTML page (${res.contentType || 'no content type'})` };
}

/** 404 and 410: the page is gone, and a sync removes it (a 5xx or timeout removes nothing). */
export function isGone(status: number): boolean {
  return status === 404 || status === 410;
}

/** Decodes an HTML body with the charset of its Content-Type or `<meta>`, UTF-8 otherwise. */
export function decodeHtml(res: FetchResponse): string {
  const fromHeader = /charset\s*=\s*"?([\w.:-]+)/i.exec(res.headers['content-type'] ?? '')?.[1];
  const head = res.body.subarray(0, 2048).toString('latin1');
  const fromMeta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
  for (const label of [fromHeader, fromMeta, 'utf-8']) {
    if (!label) continue;
    try {
      return new TextDecoder(label).decode(res.body);
    } catch {
      // Unknown label: try the next source of truth.
    }
  }
  return res.body.toString('utf8');
}

/**
 * Turns a fetched page into a document, or explains why it cannot: FETCH_FAILED for a non-2xx
 * status, UNSUPPORTED for non-HTML, NO_CONTENT for an empty or JavaScript-only page. The page is
 * known by one URL, its source and link alike: its usable canonical URL on the same origin, else
 * the URL it was fetched from after redirects.
 */
export function pageDocument(res: FetchResponse, extract: ExtractFn): LoadedDocument {
  if (res.status < 200 || res.status >= 300) {
    throw new KbqaError('FETCH_FAILED', `could not fetch ${res.url}: HTTP ${res.status}`);
  }
  if (!isHtml(res)) {
    const type = res.contentType || 'an unknown type';
    throw new KbqaError('UNSUPPORTED', `${res.url} is ${type}, not an HTML page`);
  }
  const page = extract(decodeHtml(res), res.url);
  if (page.needsJavaScript) throw new KbqaError('NO_CONTENT', `${JS_ONLY_MESSAGE}: ${res.url}`);
  if (page.textLength === 0 || !page.markdown.trim()) {
    throw new KbqaError('NO_CONTENT', `no extractable content: ${res.url}`);
  }
  const key = sitePageKey(usableCanonical(page.canonicalUrl, res.url), res.url, new URL(res.url).origin);
  return {
    source: key,
    content: page.markdown,
    title: page.title || new URL(res.url).pathname,
    link: key,
    version: responseVersion(res, key),
    ...(page.versionHints ? { metadata: versionHintMetadata(page.versionHints) } : {}),
  };
}
