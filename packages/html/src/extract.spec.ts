import { describe, expect, it } from '@jest/globals';
import { DOCS_CORPUS_DIR as CORPUS } from '@kbqa/core/testing';
import { extractContent } from './extract';
import { CHROME_PHRASES, renderDocsSite } from './testing';

const URL_ = 'https://docs.example.com/guide/intro';

const page = (body: string, head = ''): string =>
  `<!doctype html><html lang="en"><head><title>Intro | Example Docs</title>${head}</head><body>${body}</body></html>`;

const RICH = page(`
<header><nav><a href="/">Home</a> <a href="/guide/">Guide</a> <a href="https://github.com/x/y">GitHub</a></nav></header>
<aside class="sidebar"><h2>Documentation Index</h2><ul><li><a href="/guide/intro">Intro</a></li><li><a href="/guide/api#top">API</a></li></ul></aside>
<main>
  <h1>Getting started</h1>
  <p>Install the <code>example</code> package and call <a href="/guide/api">the API</a> from your server code.</p>
  <h2>Options</h2>
  <ul>
    <li>First option
      <ul><li>nested <strong>detail</strong></li><li>another detail</li></ul>
    </li>
    <li>Second option</li>
  </ul>
  <ol start="3"><li>three</li><li>four</li></ol>
  <h3>Table</h3>
  <table><thead><tr><th>Name</th><th>Default</th></tr></thead>
  <tbody><tr><td>timeout</td><td><code>30s</code></td></tr><tr><td>a|b</td><td>none</td></tr></tbody></table>
  <h4>Code</h4>
  <pre><code class="language-ts">const a = b < c && d_e * 2;
if (x) {

  return \`tpl\`;
}</code></pre>
  <p>Ends here with a final sentence about configuration and defaults.</p>
</main>
<footer><p>© OpenJS Foundation and Fastify contributors</p><a href="mailto:a@b.c">mail</a><a href="javascript:void(0)">js</a></footer>
`);

describe(extractContent.name, () => {
  it('keeps headings at their levels, nested lists, tables and code blocks', () => {
    const { markdown, title } = extractContent(RICH, URL_);
    expect(title).toBe('Intro');
    expect(markdown).toContain('# Getting started\n');
    expect(markdown).toContain('\n## Options\n');
    expect(markdown).toContain('\n### Table\n');
    expect(markdown).toContain('\n#### Code\n');
    expect(markdown).toContain('- First option\n  - nested **detail**\n  - another detail\n- Second option');
    expect(markdown).toContain('3. three\n4. four');
    expect(markdown).toContain('| Name | Default |\n| --- | --- |\n| timeout | `30s` |\n| a\\|b | none |');
    expect(markdown).toContain('```ts\nconst a = b < c && d_e * 2;\nif (x) {\n\n  return `tpl`;\n}\n```');
    expect(markdown).toContain('Install the `example` package and call the API from your server code.');
  });

  it('keeps code, languages and heading levels intact through Readability', () => {
    const { markdown } = extractContent(RICH, URL_, { strategy: 'readability' });
    expect(markdown).toContain('# Getting started');
    expect(markdown).toContain('```ts\nconst a = b < c && d_e * 2;');
    expect(markdown).toContain('| timeout | `30s` |');
  });

  it('drops navigation, sidebars and footers', () => {
    for (const strategy of ['semantic', 'readability'] as const) {
      const { markdown } = extractContent(RICH, URL_, { strategy });
      expect(markdown).not.toContain('Documentation Index');
      expect(markdown).not.toContain('GitHub');
      expect(markdown).not.toContain('OpenJS');
    }
  });

  it('drops the chrome of every page of a rendered docs site', () => {
    for (const flavor of ['plain', 'docusaurus'] as const) {
      const site = renderDocsSite(CORPUS, { flavor });
      for (const [path, html] of [...site].slice(0, 10)) {
        const { markdown } = extractContent(html, `http://127.0.0.1${path}`);
        for (const phrase of CHROME_PHRASES) expect(markdown).not.toContain(phrase);
        expect(markdown.length).toBeGreaterThan(100);
      }
    }
  });

  it('reads the Docusaurus article: no hash links, code lines from <br>, language from the wrapper', () => {
    const site = renderDocsSite(CORPUS, { flavor: 'docusaurus' });
    const html = site.get('/docs/reference/routes') ?? '';
    const { markdown, title } = extractContent(html, 'http://127.0.0.1/docs/reference/routes');
    expect(title).toBe('Routes');
    expect(markdown).toContain('### Full declaration\n\n```js\napp.route(options);\n```');
    expect(markdown).not.toContain('\u200b');
    expect(markdown).not.toContain('Direct link');
    expect(markdown).not.toContain('Copy');
  });

  it('falls back to <main>, then <article>, when Readability finds too little', () => {
    const links = Array.from(
      { length: 12 },
      (_, i) => `<li><a href="/p${i}">Page number ${i} of the guide</a></li>`,
    );
    const mainOnly = page(`<div class="nav">x</div><main><h1>Index</h1><ul>${links.join('')}</ul></main>`);
    const fromMain = extractContent(mainOnly, URL_, { strategy: 'readability' });
    expect(fromMain.markdown).toContain('- Page number 0 of the guide');
    expect(fromMain.markdown).toContain('- Page number 11 of the guide');

    const articleOnly = page(
      `<div><a href="/">Home</a></div><article><h1>Short</h1><p>${'A short article body sentence. '.repeat(4)}</p></article>`,
    );
    expect(extractContent(articleOnly, URL_, { strategy: 'readability' }).markdown).toContain('# Short');
    expect(extractContent(articleOnly, URL_).markdown).toContain('A short article body sentence.');
  });

  it('keeps content whose ids or classes only look like chrome', () => {
    const html = page(
      `<div class="cookie-banner">We use cookies. Accept all cookies</div><a class="skipToContent_x" href="#c">Skip to main content</a>` +
        `<div id="__docusaurus_skipToContent_fallback"><div class="content"><h2 id="set-cookie">Set-Cookie</h2><section id="cookies"><p>${'How the server sets cookies on replies. '.repeat(5)}</p></section></div></div>`,
    );
    for (const strategy of ['semantic', 'readability'] as const) {
      const { markdown } = extractContent(html, URL_, { strategy });
      expect(markdown).toContain('## Set-Cookie');
      expect(markdown).toContain('How the server sets cookies on replies.');
      expect(markdown).not.toContain('Accept all cookies');
      expect(markdown).not.toContain('Skip to main content');
    }
  });

  it('uses the body without chrome when there is no main or article', () => {
    const html = page(
      `<nav><a href="/a">Nav link</a></nav><div class="content"><h2>Plain</h2><p>${'Body text here. '.repeat(10)}</p></div><footer>Foot</footer>`,
    );
    const { markdown } = extractContent(html, URL_);
    expect(markdown).toContain('## Plain');
    expect(markdown).not.toContain('Nav link');
    expect(markdown).not.toContain('Foot');
  });

  it('reads the canonical URL resolved against the page URL', () => {
    const html = page('<main><p>x</p></main>', '<link rel="canonical" href="../reference/intro?v=2">');
    expect(extractContent(html, URL_).canonicalUrl).toBe('https://docs.example.com/reference/intro?v=2');
    expect(extractContent(page('<p>x</p>'), URL_).canonicalUrl).toBeUndefined();
  });

  it('lists every link of the page absolute, without fragments, once each', () => {
    const { links } = extractContent(RICH, URL_);
    expect(links).toEqual(
      expect.arrayContaining([
        'https://docs.example.com/',
        'https://docs.example.com/guide/',
        'https://github.com/x/y',
        'https://docs.example.com/guide/intro',
        'https://docs.example.com/guide/api',
      ]),
    );
    expect(links.filter((l) => l === 'https://docs.example.com/guide/api')).toHaveLength(1);
    expect(links.some((l) => l.includes('#') || l.startsWith('mailto:') || l.startsWith('javascript:'))).toBe(
      false,
    );
  });

  it('resolves links against <base href>', () => {
    const html = page('<main><a href="page">p</a></main>', '<base href="https://cdn.example.org/root/">');
    expect(extractContent(html, URL_).links).toEqual(['https://cdn.example.org/root/page']);
  });

  it('keeps links inline as [text](url) when asked', () => {
    const { markdown } = extractContent(RICH, URL_, { links: 'inline' });
    expect(markdown).toContain('call [the API](https://docs.example.com/guide/api) from');
  });

  it('reads the language of the page', () => {
    expect(extractContent(RICH, URL_).lang).toBe('en');
  });

  it('flags a page that renders only with JavaScript', () => {
    const spa = page(
      '<noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div><script src="/static/js/main.js"></script>',
    );
    const result = extractContent(spa, URL_);
    expect(result.needsJavaScript).toBe(true);
    expect(result.textLength).toBeLessThan(50);
    expect(extractContent(RICH, URL_).needsJavaScript).toBe(false);
  });

  it('does not hang on a 5 MB page', () => {
    const paragraph = `<p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(20)}</p>\n`;
    const html = page(
      `<main><h1>Huge</h1>${paragraph.repeat(Math.ceil(5_000_000 / paragraph.length))}</main>`,
    );
    expect(html.length).toBeGreaterThan(5_000_000);
    const result = extractContent(html, URL_);
    expect(result.markdown.startsWith('# Huge')).toBe(true);
    expect(result.textLength).toBeGreaterThan(4_000_000);
    // Readability is skipped on pages this size; the semantic chain still finds the text.
    expect(extractContent(html, URL_, { strategy: 'readability' }).textLength).toBeGreaterThan(4_000_000);
  }, 60_000);

  it('tolerates malformed HTML', () => {
    const broken =
      '<title>Broken<body><main><h1>Title<p>unclosed <b>bold <i>both</b> text</i><ul><li>one<li>two</ul></div></span><table><td>cell<tr><td>row2';
    const result = extractContent(broken, URL_);
    expect(result.markdown).toContain('Title');
    expect(result.markdown).toContain('one');
    expect(result.markdown).toContain('row2');
    expect(extractContent('', URL_).markdown).toBe('');
    expect(extractContent('\u0000<<>>&&&', URL_).links).toEqual([]);
  });

  it('survives pathologically deep nesting', () => {
    const deep = page(`<main>${'<div>'.repeat(20_000)}deep text${'</div>'.repeat(20_000)}</main>`);
    expect(extractContent(deep, URL_).markdown).toContain('deep text');
  });

  it('gives the same markdown with jsdom as with linkedom', () => {
    expect(extractContent(RICH, URL_, { dom: 'jsdom' }).markdown).toBe(extractContent(RICH, URL_).markdown);
  });
});
