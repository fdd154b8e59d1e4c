import { describe, expect, it } from '@jest/globals';
import { DOCS_CORPUS_DIR as CORPUS } from '@kbqa/core/testing';
import { markdownToHtml } from './markdown-to-html';
import { readCorpus, renderDocsSite, renderSitemap } from './render-site';

describe(renderDocsSite.name, () => {
  it('renders every corpus page with header nav, a sidebar linking all pages and a footer', () => {
    const pages = readCorpus(CORPUS);
    const site = renderDocsSite(CORPUS);
    expect(site.size).toBe(pages.length);
    const html = site.get('/docs/reference/routes') ?? '';
    expect(html).toContain('<header class="site-header">');
    expect(html).toContain('<footer class="site-footer">');
    for (const p of pages) expect(html).toContain(`href="${p.path}"`);
    expect(html).toContain('href="/docs/reference/server#addmethod"');
  });

  it('resolves links from a nested folder and leaves front matter out of the page', () => {
    const site = renderDocsSite(CORPUS);
    const serverless = site.get('/docs/guides/deployment/serverless') ?? '';
    expect(serverless).toContain('href="/docs/reference/server#listen"');
    const containers = readCorpus(CORPUS).find((p) => p.file === 'guides/deployment/containers.md');
    expect(containers?.title).toBe('Containers');
    expect(containers?.markdown.startsWith('# Containers')).toBe(true);
    const html = site.get('/docs/guides/deployment/containers') ?? '';
    expect(html).toContain('<title>Containers |');
    expect(html).not.toContain('sidebar_label');
    expect(site.get('/') ?? '').toContain('<title>Tidepool documentation |');
  });

  it('puts the site under a base path and renders Docusaurus markup', () => {
    const site = renderDocsSite(CORPUS, { basePath: '/site', flavor: 'docusaurus' });
    expect(site.has('/site/')).toBe(true);
    const html = site.get('/site/docs/reference/routes') ?? '';
    expect(html).toContain('<meta name="generator" content="Docusaurus');
    expect(html).toContain('class="theme-doc-markdown markdown"');
  });

  it('writes a sitemap of absolute URLs', () => {
    expect(renderSitemap(['http://a.test/x?y=1&z=2'])).toContain('<loc>http://a.test/x?y=1&amp;z=2</loc>');
  });
});

describe(markdownToHtml.name, () => {
  it('renders headings, nested lists, tables, fences, inline code and links', () => {
    const html = markdownToHtml(
      [
        '## Title',
        '',
        'Text with `a<b` and [`link`](./x.md).',
        '',
        '- one',
        '  - nested',
        '- two',
        '',
        '| A | B |',
        '|---|---|',
        '| 1 | 2 |',
        '',
        '```js',
        'const x = 1 < 2;',
        '```',
      ].join('\n'),
      (href) => href.replace('.md', ''),
    );
    expect(html).toContain('<h2 id="title">Title</h2>');
    expect(html).toContain('<code>a&lt;b</code>');
    expect(html).toContain('<a href="./x"><code>link</code></a>');
    expect(html).toMatch(/<li>one<ul>\s*<li>nested<\/li>\s*<\/ul><\/li>/);
    expect(html).toContain('<th>A</th><th>B</th>');
    expect(html).toContain('<pre><code class="language-js">const x = 1 &lt; 2;</code></pre>');
  });
});
