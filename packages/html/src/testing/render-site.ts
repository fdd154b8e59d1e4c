import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { escapeHtml, markdownToHtml, slug } from './markdown-to-html';

/** One markdown file of a corpus and the site path it is served at. */
export interface CorpusPage {
  /** Site path, e.g. `/docs/reference/routes` (`/` for the corpus's `index.md`). */
  path: string;
  /** File path relative to the corpus directory, with `/` separators. */
  file: string;
  title: string;
  markdown: string;
}

export interface RenderSiteOptions {
  /** `plain` (default): semantic HTML5 layout. `docusaurus`: Docusaurus v3 markup and classes. */
  flavor?: 'plain' | 'docusaurus';
  /** Path prefix the site lives under, e.g. `/site` (default none). */
  basePath?: string;
}

/**
 * Phrases that only appear in the chrome of rendered pages (header nav, sidebar, footer, page
 * tools); extracted content must contain none of them.
 */
export const CHROME_PHRASES = [
  'Skip to main content',
  'Documentation Index',
  'OpenJS Foundation and Fastify contributors',
  'Edit this page',
  'On this page',
  'Accept all cookies',
  'Previous page',
];

/**
 * Reads every `*.md` file of a corpus directory (sorted) and assigns it a site path. Front matter is
 * left out of the page, as a docs site builder does, and its `title` names the page.
 */
export function readCorpus(corpusDir: string, basePath = ''): CorpusPage[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.md') && entry.name !== 'SOURCE.md') files.push(full);
    }
  };
  walk(corpusDir);
  files.sort();
  return files.map((full) => {
    const file = relative(corpusDir, full).split(sep).join('/');
    const { markdown, title } = splitFrontMatter(readFileSync(full, 'utf8'));
    return { path: pagePath(file, basePath), file, title: title ?? titleOf(markdown, file), markdown };
  });
}

/**
 * Renders a markdown corpus as a documentation website: a map of path → HTML, each page with a
 * header nav, a sidebar linking every page, a footer and the page rendered to HTML. Crawler
 * tests and benchmarks serve it from a local HTTP server.
 */
export function renderDocsSite(corpusDir: string, options: RenderSiteOptions = {}): Map<string, string> {
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const pages = readCorpus(corpusDir, basePath);
  const site = new Map<string, string>();
  pages.forEach((page, index) => {
    const rewrite = (href: string): string => rewriteLink(href, page.file, basePath);
    let body = markdownToHtml(page.markdown, rewrite);
    if (!/^\s*#\s/m.test(page.markdown.split('\n').slice(0, 5).join('\n')) && !/<h1/i.test(body)) {
      body = `<h1>${escapeHtml(page.title)}</h1>\n${body}`;
    }
    const html =
      options.flavor === 'docusaurus'
        ? docusaurusPage(page, body, pages, basePath, pages[index - 1], pages[index + 1])
        : plainPage(page, body, pages, basePath);
    site.set(page.path, html);
  });
  return site;
}

/** A sitemap listing the given absolute URLs. */
export function renderSitemap(urls: string[]): string {
  const entries = urls.map((u) => `  <url><loc>${escapeHtml(u)}</loc><changefreq>weekly</changefreq></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('\n')}\n</urlset>\n`;
}

function pagePath(file: string, basePath: string): string {
  if (file === 'index.md') return `${basePath}/`;
  return `${basePath}/docs/${file.replace(/\.md$/, '').toLowerCase()}`;
}

function splitFrontMatter(text: string): { markdown: string; title?: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(text);
  if (!match) return { markdown: text };
  const title = /^title:\s*(.+?)\s*$/m.exec(match[1] ?? '')?.[1]?.replace(/^(['"])(.*)\1$/, '$2');
  return { markdown: text.slice(match[0].length).replace(/^\s+/, ''), ...(title ? { title } : {}) };
}

function titleOf(markdown: string, file: string): string {
  const heading = /^#{1,2}\s+(.+)$/m.exec(markdown)?.[1];
  const name = posix.basename(file, '.md').replace(/-/g, ' ');
  return (heading ?? name).replace(/[`*_]/g, '').trim() || name;
}

function rewriteLink(href: string, file: string, basePath: string): string {
  const match = /^([^#?]*\.md)(#.*)?$/.exec(href);
  if (!match || /^[a-z]+:/i.test(href)) return href;
  const target = posix.normalize(posix.join(posix.dirname(file), match[1] ?? ''));
  if (target.startsWith('..')) return href;
  return pagePath(target, basePath) + (match[2] ?? '');
}

function sidebar(pages: CorpusPage[], current: CorpusPage): string {
  const items = pages
    .map((p) => {
      const active = p === current ? ' class="active" aria-current="page"' : '';
      return `<li><a href="${p.path}"${active}>${escapeHtml(p.title)}</a></li>`;
    })
    .join('\n');
  return `<h2 class="sidebar-title">Documentation Index</h2>\n<ul>\n${items}\n</ul>`;
}

function plainPage(page: CorpusPage, body: string, pages: CorpusPage[], basePath: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(page.title)} | Fastify</title>
<link rel="canonical" href="${page.path}">
<link rel="stylesheet" href="${basePath}/assets/site.css">
<style>body { font-family: sans-serif; } .sidebar { float: left; width: 240px; }</style>
<script>window.dataLayer = window.dataLayer || []; function gtag(){ dataLayer.push(arguments); }</script>
</head>
<body>
<a class="skip-link" href="#content">Skip to main content</a>
<header class="site-header">
  <nav aria-label="Main">
    <a href="${basePath}/" class="logo"><svg width="20" height="20"><circle cx="10" cy="10" r="8"/></svg> Fastify</a>
    <ul>
      <li><a href="${basePath}/">Home</a></li>
      <li><a href="${basePath}/docs/reference/index">Reference</a></li>
      <li><a href="${basePath}/docs/guides/index">Guides</a></li>
      <li><a href="https://github.com/fastify/fastify">GitHub</a></li>
    </ul>
    <form role="search" action="${basePath}/search"><input name="q" placeholder="Search docs"><button>Search</button></form>
  </nav>
</header>
<div class="layout">
<aside class="sidebar">
<nav aria-label="Docs">
${sidebar(pages, page)}
</nav>
</aside>
<main id="content">
<nav class="breadcrumbs" aria-label="breadcrumbs"><a href="${basePath}/">Home</a> › <a href="${basePath}/docs/reference/index">Docs</a> › ${escapeHtml(page.title)}</nav>
<article>
${body}
</article>
<div class="page-tools"><a href="https://github.com/fastify/fastify/edit/main/docs/${page.file}">Edit this page</a></div>
</main>
</div>
<div class="cookie-banner" role="dialog">We use cookies to improve the docs. <button>Accept all cookies</button></div>
<footer class="site-footer">
  <p>© OpenJS Foundation and Fastify contributors. Licensed under MIT.</p>
  <ul><li><a href="https://twitter.com/fastifyjs">Twitter</a></li><li><a href="https://discord.gg/fastify">Discord</a></li><li><a href="${basePath}/docs/guides/contributing">Contributing</a></li></ul>
</footer>
<script src="${basePath}/assets/app.js"></script>
</body>
</html>
`;
}

function docusaurusPage(
  page: CorpusPage,
  body: string,
  pages: CorpusPage[],
  basePath: string,
  previous: CorpusPage | undefined,
  next: CorpusPage | undefined,
): string {
  const content = docusaurusMarkup(body);
  const toc = [...body.matchAll(/<h([23]) id="([^"]*)">(.*?)<\/h\1>/g)]
    .map((m) => `<li><a href="#${m[2] ?? ''}" class="table-of-contents__link">${m[3] ?? ''}</a></li>`)
    .join('');
  const pager = [
    previous
      ? `<a class="pagination-nav__link pagination-nav__link--prev" href="${previous.path}"><div class="pagination-nav__sublabel">Previous page</div><div class="pagination-nav__label">${escapeHtml(previous.title)}</div></a>`
      : '',
    next
      ? `<a class="pagination-nav__link pagination-nav__link--next" href="${next.path}"><div class="pagination-nav__sublabel">Next</div><div class="pagination-nav__label">${escapeHtml(next.title)}</div></a>`
      : '',
  ].join('');
  return `<!DOCTYPE html>
<html lang="en" dir="ltr" class="docs-wrapper plugin-docs plugin-id-default docs-version-current docs-doc-page">
<head>
<meta charset="UTF-8">
<meta name="generator" content="Docusaurus v3.5.2">
<title data-rh="true">${escapeHtml(page.title)} | Fastify</title>
<meta data-rh="true" property="og:title" content="${escapeHtml(page.title)} | Fastify">
<link data-rh="true" rel="canonical" href="${page.path}">
<link rel="stylesheet" href="${basePath}/assets/css/styles.css">
<script src="${basePath}/assets/js/runtime~main.js" defer="defer"></script>
</head>
<body class="navigation-with-keyboard">
<div id="__docusaurus">
<div role="region" aria-label="Skip to main content"><a class="skipToContent_fXgn" href="#__docusaurus_skipToContent_fallback">Skip to main content</a></div>
<nav aria-label="Main" class="navbar navbar--fixed-top"><div class="navbar__inner"><div class="navbar__items"><a class="navbar__brand" href="${basePath}/"><b class="navbar__title text--truncate">Fastify</b></a><a class="navbar__item navbar__link" href="${basePath}/docs/reference/index">Docs</a><a class="navbar__item navbar__link" href="${basePath}/blog">Blog</a><a href="https://github.com/fastify/fastify" class="navbar__item navbar__link">GitHub</a></div></div></nav>
<div id="__docusaurus_skipToContent_fallback" class="main-wrapper mainWrapper_z2l0">
<div class="docsWrapper_hBAB"><div class="docRoot_UBD9">
<aside class="theme-doc-sidebar-container"><div class="sidebarViewport"><nav aria-label="Docs sidebar" class="menu thin-scrollbar">${sidebar(pages, page)}</nav></div></aside>
<main class="docMainContainer_TBSr"><div class="container padding-top--md padding-bottom--lg"><div class="row"><div class="col docItemCol_VOVn"><div class="docItemContainer_Djhp">
<article>
<nav class="theme-doc-breadcrumbs breadcrumbsContainer_Z_bl" aria-label="Breadcrumbs"><ul class="breadcrumbs"><li class="breadcrumbs__item"><a aria-label="Home page" class="breadcrumbs__link" href="${basePath}/">🏠</a></li><li class="breadcrumbs__item breadcrumbs__item--active"><span class="breadcrumbs__link">${escapeHtml(page.title)}</span></li></ul></nav>
<div class="tocCollapsible_ETCw theme-doc-toc-mobile tocMobile_ITEo"><button type="button" class="clean-btn tocCollapsibleButton_TO0P">On this page</button></div>
<div class="theme-doc-markdown markdown">
${content}
</div>
<footer class="theme-doc-footer docusaurus-mt-lg"><div class="theme-doc-footer-edit-meta-row row"><div class="col"><a href="https://github.com/fastify/fastify/edit/main/docs/${page.file}" target="_blank" rel="noopener noreferrer" class="theme-edit-this-page">Edit this page</a></div></div></footer>
</article>
<nav class="pagination-nav docusaurus-mt-lg" aria-label="Docs pages">${pager}</nav>
</div></div>
<div class="col col--3"><div class="tableOfContents_bqdL thin-scrollbar theme-doc-toc-desktop"><ul class="table-of-contents table-of-contents__left-border">${toc}</ul></div></div>
</div></div></main>
</div></div>
</div>
<footer class="footer footer--dark"><div class="container container-fluid"><div class="footer__bottom text--center"><div class="footer__copyright">© OpenJS Foundation and Fastify contributors. Built with Docusaurus.</div></div></div></footer>
</div>
</body>
</html>
`;
}

/** Docusaurus details: hash links in headings, Prism code blocks with one span per line. */
function docusaurusMarkup(body: string): string {
  return body
    .replace(/<h([1-6]) id="([^"]*)">(.*?)<\/h\1>/g, (_m, level: string, id: string, text: string) =>
      level === '1'
        ? `<header><h1>${text}</h1></header>`
        : `<h${level} class="anchor anchorWithStickyNavbar_LWe7" id="${id}">${text}<a href="#${id}" class="hash-link" aria-label="Direct link to ${slug(text)}" title="Direct link to ${slug(text)}">\u200b</a></h${level}>`,
    )
    .replace(
      /<pre><code(?: class="language-([\w#+.-]+)")?>([\s\S]*?)<\/code><\/pre>/g,
      (_m, lang: string | undefined, code: string) => {
        const language = lang ?? 'text';
        const lines = code
          .split('\n')
          .map(
            (line) =>
              `<span class="token-line" style="color:#393A34"><span class="token plain">${line}</span><br></span>`,
          )
          .join('');
        return `<div class="language-${language} codeBlockContainer_Ckt0 theme-code-block"><div class="codeBlockContent_biex"><pre tabindex="0" class="prism-code language-${language} codeBlock_bY9V thin-scrollbar"><code class="codeBlockLines_e6Vv">${lines}</code></pre><div class="buttonGroup__atx"><button type="button" aria-label="Copy code to clipboard" title="Copy" class="clean-btn">Copy</button></div></div></div>`;
      },
    );
}
