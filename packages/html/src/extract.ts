import type { PageVersionHints } from '@kbqa/core';
import { Readability } from '@mozilla/readability';
import { flattenCallouts, isCalloutBox } from './callouts';
import { parseDocument, type DomImplementation } from './dom';
import {
  CODE_ATTR,
  codeLanguage,
  codeText,
  LEVEL_ATTR,
  toMarkdown,
  type CodeBlock,
  type LinkStyle,
} from './markdown';

/** Options of {@link extractContent}; every field has a default suited to documentation sites. */
export interface ExtractOptions {
  /** DOM implementation; `linkedom` (default) is several times faster than `jsdom` (README). */
  dom?: DomImplementation;
  /**
   * `semantic` (default): Docusaurus article, else `main`, `article`, `[role=main]`, else the
   * body without chrome. `readability`: Mozilla Readability first, the semantic chain when it
   * finds too little. See the README for the measurements behind the default.
   */
  strategy?: 'semantic' | 'readability';
  /** `auto` (default) detects Docusaurus by its generator meta tag or theme classes. */
  docusaurus?: boolean | 'auto';
  /** `text` (default) keeps link text only; `inline` keeps `[text](absolute-url)` for http(s) links. */
  links?: LinkStyle;
  /** HTML beyond this many characters is cut before parsing (default 5,000,000). */
  maxChars?: number;
  /** Pages with more elements skip Readability, whose cost grows faster than linear (default 20,000). */
  maxReadabilityElements?: number;
}

/** What {@link extractContent} reads from one HTML page. */
export interface ExtractedPage {
  title: string;
  /** Main content as markdown: ATX headings, nested lists, GFM tables, fenced code. */
  markdown: string;
  /** `<link rel=canonical>` resolved against the page URL. */
  canonicalUrl: string | undefined;
  /** Every http(s) link of the whole page (nav included), absolute, without fragment, de-duplicated. */
  links: string[];
  /** `lang` of the `<html>` element. */
  lang?: string;
  /** The version the page names in its Docusaurus or Read the Docs meta tags. */
  versionHints?: PageVersionHints;
  /** Characters of text in `markdown` without markdown syntax and whitespace runs. */
  textLength: number;
  /** The page looks rendered by client-side JavaScript (little text, scripts, empty app root). */
  needsJavaScript: boolean;
}

const DEFAULTS = {
  dom: 'linkedom' as DomImplementation,
  strategy: 'semantic' as 'semantic' | 'readability',
  docusaurus: 'auto' as boolean | 'auto',
  links: 'text' as LinkStyle,
  maxChars: 5_000_000,
  maxReadabilityElements: 20_000,
};

/** Below this many characters a candidate counts as empty and the next one is tried. */
const MIN_TEXT = 80;

const CHROME_TAGS = new Set(['NAV', 'HEADER', 'FOOTER', 'ASIDE', 'FORM', 'DIALOG']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search', 'dialog']);
/** Class names (whole tokens) of site chrome: sidebars, breadcrumbs, TOCs, page tools. */
const CHROME_CLASSES = new Set([
  'navbar',
  'sidebar',
  'menu',
  'breadcrumbs',
  'breadcrumb',
  'toc',
  'table-of-contents',
  'theme-doc-toc-mobile',
  'theme-doc-toc-desktop',
  'theme-doc-footer',
  'theme-edit-this-page',
  'theme-last-updated',
  'edit-this-page',
  'pagination-nav',
  'skip-link',
  'hash-link',
  'headerlink',
  'anchor-link',
]);
/**
 * Class names or ids of cookie and consent banners. Narrow on purpose: a heading or section
 * about cookies (`id="set-cookie"`) is content, and Docusaurus's main wrapper is
 * `id="__docusaurus_skipToContent_fallback"`.
 */
const CHROME_PATTERN =
  /cookie[-_]?(banner|bar|notice|consent|popup|modal)|consent[-_]?(banner|bar|manager|popup|modal)|onetrust|cookiebot|cc-window/i;
const HEADINGS = new Set(['H1', 'H2', 'H3', 'H4', 'H5', 'H6']);
const NOISE_TAGS = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'SVG',
  'IFRAME',
  'OBJECT',
  'EMBED',
  'CANVAS',
  'LINK',
  'META',
]);

const APP_ROOT_IDS = new Set(['root', 'app', '__next', '__nuxt', '___gatsby']);

/**
 * What one walk over the document finds. linkedom's selector and tag queries each walk the
 * whole tree, and a dozen of them cost more than the walk that answers them all at once.
 */
interface Scan {
  links: Element[];
  pres: Element[];
  noise: Element[];
  noscriptJs: boolean;
  appRoots: Element[];
  scripts: number;
  title?: string;
  ogTitle?: string;
  generator?: string;
  docusaurusVersion?: string;
  readTheDocsVersion?: string;
  canonical?: string;
  baseHref?: string;
  mains: Element[];
  articles: Element[];
  roleMains: Element[];
  docMarkdown: Element[];
  articleMarkdown: Element[];
  /** Callout boxes (admonitions), outer before inner. */
  callouts: Element[];
}

/**
 * Reads the main content of an HTML page as markdown, plus what a crawler needs from the page:
 * canonical URL, links, language and whether the page only renders with JavaScript.
 */
export function extractContent(html: string, url: string, options: ExtractOptions = {}): ExtractedPage {
  const opts = { ...DEFAULTS, ...options };
  const { html: source, scripts } = stripRawElements(
    html.length > opts.maxChars ? html.slice(0, opts.maxChars) : html,
  );
  const doc = parseDocument(source, url, opts.dom);
  const lang = doc.documentElement?.getAttribute('lang')?.trim() || undefined;

  let scan: Scan | undefined;
  let markdown: string;
  let bodyText: number;
  let base = url;
  try {
    scan = scanDocument(doc);
    base = resolve(scan.baseHref, url) ?? url;
    bodyText = doc.body ? textLength(doc.body, 400, false) : 0;
    markdown = mainContent(doc, scan, source, url, base, opts);
  } catch (error) {
    // Pathologically deep markup overflows the recursive walks; its plain text still helps.
    if (!(error instanceof RangeError)) throw error;
    scan = undefined;
    markdown = (doc.body?.textContent ?? '').replace(/\s+/g, ' ').trim();
    bodyText = markdown.length;
  }

  const links = collectLinks(scan?.links ?? Array.from(doc.getElementsByTagName('a')), base);
  const canonicalUrl = resolve(scan?.canonical, base);
  const h1 = /^# (.+)$/m.exec(markdown)?.[1]?.trim();
  const title = siteTitle(scan?.ogTitle ?? '') || siteTitle(scan?.title ?? '') || h1 || '';
  if (markdown && title && !h1) markdown = `# ${title}\n\n${markdown}`;

  const textLength_ = plainLength(markdown);
  const jsHints = scan
    ? scan.noscriptJs ||
      scripts + scan.scripts > 0 ||
      scan.appRoots.some((el) => (el.textContent ?? '').trim().length < 20)
    : scripts > 0;
  const needsJavaScript = textLength_ < 200 && bodyText < 400 && jsHints;

  return {
    title,
    markdown,
    canonicalUrl,
    links,
    ...(lang ? { lang } : {}),
    ...(scan?.docusaurusVersion || scan?.readTheDocsVersion
      ? {
          versionHints: {
            ...(scan.docusaurusVersion ? { docusaurus: scan.docusaurusVersion } : {}),
            ...(scan.readTheDocsVersion ? { readTheDocs: scan.readTheDocsVersion } : {}),
          },
        }
      : {}),
    textLength: textLength_,
    needsJavaScript,
  };
}

function scanDocument(doc: Document): Scan {
  const scan: Scan = {
    links: [],
    pres: [],
    noise: [],
    noscriptJs: false,
    appRoots: [],
    scripts: 0,
    mains: [],
    articles: [],
    roleMains: [],
    docMarkdown: [],
    articleMarkdown: [],
    callouts: [],
  };
  const visit = (el: Element, inArticle: boolean): void => {
    for (let child = el.firstElementChild; child; child = child.nextElementSibling) {
      const tag = child.tagName.toUpperCase();
      if (NOISE_TAGS.has(tag)) {
        scan.noise.push(child);
        if (tag === 'SCRIPT') scan.scripts += 1;
        else if (tag === 'NOSCRIPT') {
          scan.noscriptJs ||= /javascript|enable js|js is (disabled|required)/i.test(child.textContent ?? '');
        } else if (tag === 'META') {
          const name = child.getAttribute('name')?.toLowerCase();
          if (name === 'generator') scan.generator = child.getAttribute('content') ?? '';
          else if (name === 'docusaurus_version')
            scan.docusaurusVersion = child.getAttribute('content') ?? '';
          else if (name === 'readthedocs-version-slug')
            scan.readTheDocsVersion = child.getAttribute('content') ?? '';
          if (child.getAttribute('property') === 'og:title')
            scan.ogTitle = child.getAttribute('content')?.trim();
        } else if (tag === 'LINK' && scan.canonical === undefined) {
          if (/(^|\s)canonical(\s|$)/i.test(child.getAttribute('rel') ?? '')) {
            scan.canonical = child.getAttribute('href') ?? undefined;
          }
        }
        continue;
      }
      switch (tag) {
        case 'A':
        case 'AREA':
          if (child.hasAttribute('href')) scan.links.push(child);
          break;
        case 'PRE':
          scan.pres.push(child);
          continue; // code is read as a whole; nothing inside is structure
        case 'TITLE':
          scan.title ??= (child.textContent ?? '').replace(/\s+/g, ' ').trim();
          continue;
        case 'BASE':
          scan.baseHref ??= child.getAttribute('href') ?? undefined;
          continue;
        case 'MAIN':
          scan.mains.push(child);
          break;
        case 'ARTICLE':
          scan.articles.push(child);
          break;
        case 'APP-ROOT':
          scan.appRoots.push(child);
          break;
        default:
          break;
      }
      if (child.getAttribute('role') === 'main') scan.roleMains.push(child);
      const id = child.getAttribute('id');
      if (id && APP_ROOT_IDS.has(id)) scan.appRoots.push(child);
      const cls = child.getAttribute('class');
      const names = cls ? cls.split(/\s+/) : [];
      if (names.includes('theme-doc-markdown')) scan.docMarkdown.push(child);
      else if (inArticle && names.includes('markdown')) scan.articleMarkdown.push(child);
      if (isCalloutBox(child, tag, names)) scan.callouts.push(child);
      visit(child, inArticle || tag === 'ARTICLE');
    }
  };
  if (doc.documentElement) visit(doc.documentElement, false);
  return scan;
}

function mainContent(
  doc: Document,
  scan: Scan,
  source: string,
  url: string,
  base: string,
  opts: typeof DEFAULTS,
): string {
  for (const el of scan.noise) el.remove();
  const code = markCode(scan.pres);
  // Before Readability, which drops the class names the boxes are found by.
  flattenCallouts(scan.callouts);
  let root: Element | undefined;
  if (opts.docusaurus === true || (opts.docusaurus === 'auto' && isDocusaurus(scan))) {
    root = firstWithText([scan.docMarkdown, scan.articleMarkdown, scan.articles]);
  }
  if (!root && opts.strategy === 'readability' && countElements(doc, opts.maxReadabilityElements)) {
    root = readabilityRoot(doc, scan, source, url, opts.dom);
  }
  root ??= semanticRoot(doc, scan);
  if (!root) return '';
  return toMarkdown(root, code, base, opts.links, (el) => isChrome(el, true));
}

function resolve(href: string | null | undefined, base: string): string | undefined {
  if (!href) return undefined;
  try {
    return new URL(href.trim(), base).href;
  } catch {
    return undefined;
  }
}

function collectLinks(anchors: Element[], base: string): string[] {
  const seen = new Set<string>();
  for (const a of anchors) {
    const href = a.getAttribute('href');
    if (!href || href.startsWith('#') || /^\s*(javascript|mailto|tel|data):/i.test(href)) continue;
    let link: URL;
    try {
      link = new URL(href.trim(), base);
    } catch {
      continue;
    }
    if (link.protocol !== 'http:' && link.protocol !== 'https:') continue;
    link.hash = '';
    seen.add(link.href);
  }
  return [...seen];
}

const NOT_TEXT = /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE)$/i;
const CHROME_TEXT = /^(NAV|ASIDE|FOOTER)$/i;

/** Characters of visible text under `el` (whitespace runs not counted), stopping at `limit`. */
function textLength(el: Element, limit: number, skipChrome: boolean): number {
  let total = 0;
  const walk = (node: Node): void => {
    for (let child = node.firstChild; child && total < limit; child = child.nextSibling) {
      if (child.nodeType === 3) total += (child.nodeValue ?? '').replace(/\s+/g, ' ').trim().length;
      else if (child.nodeType === 1) {
        if (NOT_TEXT.test(child.nodeName) || (skipChrome && CHROME_TEXT.test(child.nodeName))) continue;
        walk(child);
      }
    }
  };
  walk(el);
  return total;
}

/**
 * Cuts <script>, <style> and <svg> elements out of the HTML before parsing: they are never
 * content and are a large share of the nodes of real pages. Linear: an element without its
 * end tag stops the cutting.
 */
function stripRawElements(html: string): { html: string; scripts: number } {
  const lower = html.toLowerCase();
  const open = /<(script|style|svg)\b/g;
  let scripts = 0;
  let out = '';
  let last = 0;
  let match: RegExpExecArray | null;
  while ((match = open.exec(lower)) !== null) {
    const tag = match[1] ?? 'script';
    const end = lower.indexOf(`</${tag}`, match.index);
    if (end === -1) break;
    const close = lower.indexOf('>', end);
    if (close === -1) break;
    if (tag === 'script') scripts += 1;
    out += html.slice(last, match.index);
    last = close + 1;
    open.lastIndex = last;
  }
  return { html: last === 0 ? html : out + html.slice(last), scripts };
}

function markCode(pres: Element[]): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  for (const pre of pres) {
    const block = { lang: codeLanguage(pre), code: codeText(pre) };
    pre.setAttribute(CODE_ATTR, String(blocks.length));
    blocks.push(block);
    // One text node instead of Prism's span per token: later walks and Readability stay cheap.
    pre.textContent = block.code;
  }
  return blocks;
}

function markHeadings(doc: Document): void {
  for (const level of [1, 2, 3, 4, 5, 6]) {
    for (const h of Array.from(doc.getElementsByTagName(`h${level}`)))
      h.setAttribute(LEVEL_ATTR, String(level));
  }
}

function isDocusaurus(scan: Scan): boolean {
  return /docusaurus/i.test(scan.generator ?? '') || scan.docMarkdown.length > 0;
}

function semanticRoot(doc: Document, scan: Scan): Element | undefined {
  const found = firstWithText([scan.mains, scan.articles, scan.roleMains]);
  if (found) return found;
  const body = doc.body ?? doc.documentElement;
  if (!body) return undefined;
  removeChrome(body, false);
  return body;
}

function firstWithText(groups: Element[][]): Element | undefined {
  for (const group of groups) {
    for (const el of group) if (textLength(el, MIN_TEXT, true) >= MIN_TEXT) return el;
  }
  return undefined;
}

/**
 * Removes site chrome below `root` in one walk. Inside the chosen content (`inContent`) a
 * <header> is the article's own heading block and stays.
 */
function removeChrome(root: Element, inContent: boolean): void {
  const doomed: Element[] = [];
  const walk = (el: Element): void => {
    for (let child = el.firstElementChild; child; child = child.nextElementSibling) {
      if (isChrome(child, inContent)) doomed.push(child);
      else if (child.tagName !== 'PRE') walk(child);
    }
  };
  walk(root);
  for (const el of doomed) el.remove();
}

function isChrome(el: Element, inContent: boolean): boolean {
  const tag = el.tagName.toUpperCase();
  if (CHROME_TAGS.has(tag) && !(inContent && tag === 'HEADER')) return true;
  const role = el.getAttribute('role');
  if (role && CHROME_ROLES.has(role)) return true;
  if (el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('hidden')) return true;
  const label = el.getAttribute('aria-label');
  if (label && /breadcrumb|^skip to/i.test(label)) return true;
  if (HEADINGS.has(tag)) return false;
  const cls = el.getAttribute('class');
  if (cls) {
    for (const name of cls.split(/\s+/)) if (CHROME_CLASSES.has(name)) return true;
    if (CHROME_PATTERN.test(cls)) return true;
  }
  const id = el.getAttribute('id');
  if (id && CHROME_PATTERN.test(id)) return true;
  if (tag === 'A' && /^\s*(edit (this|on)\b|skip to )/i.test(el.textContent ?? '')) return true;
  return false;
}

function countElements(doc: Document, max: number): boolean {
  return doc.getElementsByTagName('*').length <= max;
}

function readabilityRoot(
  doc: Document,
  scan: Scan,
  html: string,
  url: string,
  dom: DomImplementation,
): Element | undefined {
  // Readability takes the text of the semantic candidate as the bar to clear; it often keeps
  // one section of a docs page and drops the rest.
  const candidate = firstWithText([scan.mains, scan.articles, scan.roleMains]);
  const bar = candidate ? textLength(candidate, Number.POSITIVE_INFINITY, true) * 0.6 : MIN_TEXT;
  markHeadings(doc);
  removeChrome(doc.body ?? doc.documentElement, false);
  const article = new Readability<Element>(doc, {
    serializer: (node) => node as Element,
    charThreshold: 200,
  }).parse();
  const content = article?.content;
  if (content && textLength(content, bar, false) >= Math.max(bar, MIN_TEXT)) return content;
  // Readability rewrote the document; the fallback starts from a fresh parse.
  const fresh = parseDocument(html, url, dom);
  const freshScan = scanDocument(fresh);
  for (const el of freshScan.noise) el.remove();
  markCode(freshScan.pres);
  flattenCallouts(freshScan.callouts);
  return semanticRoot(fresh, freshScan);
}

/** Drops the site name from "Page | Site" titles. */
function siteTitle(title: string): string {
  const parts = title.split(/\s+[|–—·•]\s+|\s+-\s+/);
  return (parts[0] ?? title).trim();
}

function plainLength(markdown: string): number {
  return markdown
    .replace(/^```.*$/gm, '')
    .replace(/^#+\s/gm, '')
    .replace(/[`*_|>#-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim().length;
}
