import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type TestServer } from '@kbqa/core/testing';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { collectConsoleErrors, describeBrowser, launchBrowser, screenshot } from './browser';
import { type RecordedRequest, startFakeLlm, type FakeLlm } from './fake-llm';
import { startTestApp, type TestApp, type TestProject } from './helpers';

const TOKEN = 'citation-links-operator-token-0123456789';
const QUESTION = 'How do pipes validate or keep the raw request body?';

/**
 * Three pages of one topic, one chunk a paragraph (KBQA_CHUNK_SIZE 200, no overlap): six chunks of
 * three pages, so the five sources of an answer repeat a page at least twice.
 */
const PAGES: Record<string, { title: string; paragraphs: string[] }> = {
  pipes: {
    title: 'Pipes',
    paragraphs: [
      'A pipe transforms the input of a route handler before the handler runs. Pipes receive the raw ' +
        'argument and return the value that the handler gets in its place.',
      'Pipes can also validate input and throw an exception when the data is bad. A request that a ' +
        'validating pipe refuses never reaches the handler, and the client gets a 400 response.',
    ],
  },
  validation: {
    title: 'Validation',
    paragraphs: [
      'The ValidationPipe checks every request body against the rules of its DTO class. Each property ' +
        'carries decorators that say what a valid value of it looks like.',
      'Set whitelist to true and the ValidationPipe strips every property without a decorator from ' +
        'the body. With forbidNonWhitelisted the request is refused instead.',
    ],
  },
  'raw-body': {
    title: 'Raw body',
    paragraphs: [
      'Enable rawBody when creating the application to keep the raw request body beside the parsed ' +
        'one. Webhook signatures are checked against these exact bytes of the body.',
      'The raw body arrives as a Buffer on the request object. Read it in the webhook controller, ' +
        'since a pipe only ever sees the parsed body of the request.',
    ],
  },
};

/** The colour the docs pages give the text a text fragment points at: found in screenshots. */
const HIGHLIGHT = 'rgb(255, 0, 255)';

/**
 * The docs site: a sitemap, the pages (their passages far below a tall empty banner, so that
 * reaching one takes a scroll, and `window.scrolled` resolving at the first scroll), and the host
 * pages of the widget.
 */
function docsSite(hostPages: Record<string, string>): Promise<TestServer> {
  let origin = '';
  const site = startServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/sitemap.xml') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
          Object.keys(PAGES)
            .map((name) => `<url><loc>${origin}/docs/${name}</loc></url>`)
            .join('') +
          '</urlset>',
      );
      return;
    }
    const host = hostPages[path];
    if (host !== undefined) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(host);
      return;
    }
    const page = PAGES[/^\/docs\/([\w-]+)$/.exec(path)?.[1] ?? ''];
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><meta charset="utf-8"><title>${page.title}</title><link rel="icon" href="data:,">` +
        `<style>body{margin:0;font:16px/1.5 sans-serif}.banner{height:2400px}` +
        `::target-text{background:${HIGHLIGHT};color:#000}</style>` +
        `<script>window.scrolled = new Promise((r) => addEventListener('scroll', r, { once: true }));</script>` +
        `</head><body><main><h1>${page.title}</h1><div class="banner"></div>` +
        page.paragraphs.map((p) => `<p>${p}</p>`).join('') +
        '</main></body></html>',
    );
  });
  return site.then((s) => {
    origin = s.origin;
    return s;
  });
}

/** A source of the answer as the fake model read it in its prompt. */
interface PromptSource {
  n: number;
  link: string;
  content: string;
}

/** The numbered sources of the prompt (`[n] title — link`, then the chunk), in order. */
function promptSources(req: RecordedRequest): PromptSource[] {
  const system = req.body.messages[0]?.content ?? '';
  return system.split(/\n\n(?=\[\d+\] )/).flatMap((block) => {
    const m = /^\[(\d+)\] (.*)\n([\s\S]*)$/.exec(block);
    return m ? [{ n: Number(m[1]), link: m[2]!.split(' — ').pop()!, content: m[3]! }] : [];
  });
}

/** The first sentence of a chunk's prose, without its full stop. */
function firstSentence(content: string): string {
  const prose = content
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .join(' ');
  return /^(.*?)\.(?:\s|$)/.exec(prose)![1]!;
}

/** What the answer cites, sentence by sentence: the quoted sentence and the page of its source. */
interface Cited {
  sentence: string;
  link: string;
}

/**
 * A model that quotes the first sentence of every source, last source first, each cited as `[n]`,
 * streaming the first two sentences at once and the rest when the gate opens.
 */
class QuotingModel {
  cited: Cited[] = [];
  private open: () => void = () => undefined;
  private gate: Promise<void> = Promise.resolve();

  constructor(llm: FakeLlm) {
    llm.script = { kind: 'custom', respond: (req, res) => this.respond(req, res) };
  }

  /** Holds the rest of the next answer back until {@link release}. */
  hold(): void {
    this.gate = new Promise((r) => (this.open = r));
  }

  release(): void {
    this.open();
    this.gate = Promise.resolve();
  }

  private respond(req: RecordedRequest, res: ServerResponse): void {
    const sources = promptSources(req).reverse();
    this.cited = sources.map((s) => ({ sentence: firstSentence(s.content), link: s.link }));
    const sentences = sources.map((s) => `${firstSentence(s.content)} [${s.n}].`);
    const frame = (content: string) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(frame(`${sentences.slice(0, 2).join(' ')} `));
    void this.gate.then(() => {
      res.write(frame(sentences.slice(2).join(' ')));
      res.end(
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
      );
    });
  }
}

/** What a rendered citation shows and where it leads. */
interface Marker {
  n: number;
  href: string;
  target: string | null;
  rel: string | null;
}

async function markers(answer: Locator): Promise<Marker[]> {
  const links = answer.locator('a', { hasText: /^\[\d+\]$/ });
  const out: Marker[] = [];
  for (const link of await links.all()) {
    out.push({
      n: Number(/\d+/.exec((await link.textContent()) ?? '')![0]),
      href: (await link.getAttribute('href')) ?? '',
      target: await link.getAttribute('target'),
      rel: await link.getAttribute('rel'),
    });
  }
  return out;
}

const page = (href: string) => href.split('#')[0]!;

/** The share of a PNG's pixels in the highlight colour, decoded by the browser itself. */
async function highlightShare(decoder: Page, png: Buffer): Promise<number> {
  return decoder.evaluate<number>(`(async () => {
    const img = new Image();
    img.src = 'data:image/png;base64,${png.toString('base64')}';
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.width;
    canvas.height = img.height;
    const g = canvas.getContext('2d');
    g.drawImage(img, 0, 0);
    const px = g.getImageData(0, 0, img.width, img.height).data;
    let hits = 0;
    for (let i = 0; i < px.length; i += 4) {
      if (px[i] > 230 && px[i + 1] < 40 && px[i + 2] > 230) hits++;
    }
    return hits / (px.length / 4);
  })()`);
}

describeBrowser('Citation links open the page they name, at the passage (e2e, Chromium)', () => {
  let llm: FakeLlm;
  let model: QuotingModel;
  let site: TestServer;
  let t: TestApp;
  let p: TestProject;
  let api: string;
  let browser: Browser;
  let context: BrowserContext;
  let decoder: Page;

  beforeAll(async () => {
    llm = await startFakeLlm();
    model = new QuotingModel(llm);
    const hostPages: Record<string, string> = {};
    site = await docsSite(hostPages);
    t = await startTestApp({
      KBQA_LLM: 'openai',
      KBQA_LLM_BASE_URL: llm.baseUrl,
      KBQA_LLM_MODEL: 'fake-model',
      KBQA_ALLOW_PRIVATE_HOSTS: site.hostPort,
      KBQA_CHUNK_SIZE: '200',
      KBQA_CHUNK_OVERLAP: '0',
      KBQA_ADMIN_TOKEN: TOKEN,
    });
    p = await t.createProject('citations');
    const res = await t
      .post('/v1/ingestData', { api_key: p.serverKey, type: 'sitemap', url: `${site.origin}/sitemap.xml` })
      .expect(200);
    expect((await t.waitForTask(res.body.task_id)).result).toMatchObject({ success: true, indexed: 3 });
    const server = t.app.getHttpServer() as Server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const host = (attributes: string) =>
      `<!doctype html><html><head><meta charset="utf-8"><title>Host</title><link rel="icon" href="data:,"></head>` +
      `<body><h1>Product docs</h1><script src="${api}/widget.js" data-anon-key="${p.anonKey}" ${attributes} defer></script></body></html>`;
    hostPages['/host'] = host('');
    hostPages['/host-plain'] = host('data-text-fragments="off"');
    await t.projects.setAllowedOrigins(p.id, [site.origin]);
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
    decoder = await context.newPage();
  }, 60_000);

  afterAll(async () => {
    model?.release();
    await browser?.close();
    await t?.close();
    await site?.close();
    await llm?.close();
  });

  /** The sources of the last answer, each a chunk: five of three pages. */
  const lastSources = () => promptSources(llm.requests.filter((r) => r.body.stream).at(-1)!);

  /**
   * Opens a citation as a reader does (a click: a new tab) and checks that the page it opened is
   * `expected`, scrolled to the cited sentence and highlighting it (the page colours `::target-text`
   * magenta; a paragraph the answer did not point at has none of it).
   */
  async function openAndSeePassage(marker: Locator, expected: string, sentence: string): Promise<void> {
    const [opened] = await Promise.all([context.waitForEvent('page'), marker.click()]);
    try {
      await opened.waitForLoadState('load');
      expect(page(opened.url())).toBe(expected);
      // The page's own promise, settled by its first scroll: the browser scrolling to the passage.
      await opened.evaluate('window.scrolled');
      const passage = opened.locator('p', { hasText: sentence });
      const box = await passage.evaluate((el) => {
        const r = (
          el as unknown as { getBoundingClientRect(): { top: number; bottom: number } }
        ).getBoundingClientRect();
        return { top: r.top, bottom: r.bottom };
      });
      const viewport = opened.viewportSize()!;
      expect(box.top).toBeGreaterThanOrEqual(0);
      expect(box.bottom).toBeLessThanOrEqual(viewport.height);
      expect(await highlightShare(decoder, await passage.screenshot())).toBeGreaterThan(0.05);
      const other = opened.locator('p').filter({ hasNotText: sentence }).first();
      if ((await other.count()) > 0 && (await other.isVisible())) {
        expect(await highlightShare(decoder, await other.screenshot())).toBe(0);
      }
    } finally {
      await opened.close();
    }
  }

  /** Each marker against the list: the n-th listed page is the one the n-th number opens. */
  function expectMarkersMatchList(shown: Marker[], listed: string[], cited: Cited[]): void {
    for (const [i, m] of shown.entries()) {
      expect(m.target).toBe('_blank');
      expect(m.rel?.split(' ')).toContain('noopener');
      expect(page(m.href)).toBe(listed[m.n - 1]);
      expect(page(m.href)).toBe(cited[i]!.link);
    }
  }

  /** Numbers follow the order the answer first cites a page: 1, then at most one more each time. */
  function expectFirstCitedFirst(shown: Marker[]): void {
    let highest = 0;
    for (const m of shown) {
      expect(m.n).toBeLessThanOrEqual(highest + 1);
      highest = Math.max(highest, m.n);
    }
  }

  describe('in the widget', () => {
    let host: Page;
    let errors: string[];
    beforeAll(async () => {
      host = await context.newPage();
      errors = collectConsoleErrors(host);
    });
    afterAll(() => host?.close());

    const listed = (dialog: Locator) =>
      dialog.locator('.src li a').evaluateAll((as) => as.map((a) => (a as unknown as { href: string }).href));

    it('numbers citations by page while the answer streams and after it ends', async () => {
      await host.goto(`${site.origin}/host`);
      await host.keyboard.press('Control+k');
      const dialog = host.getByRole('dialog', { name: 'Ask the docs' });
      await dialog.waitFor({ state: 'visible' });
      model.hold();
      await host.keyboard.type(QUESTION);
      await host.keyboard.press('Enter');
      const answer = dialog.locator('.md');

      let sources: PromptSource[];
      try {
        // The first two sentences arrived; the rest waits for the gate.
        await answer
          .locator('a', { hasText: /^\[\d+\]$/ })
          .nth(1)
          .waitFor();
        sources = lastSources();
        const early = await markers(answer);
        expect(early.map((m) => m.n)).toEqual(
          model.cited[0]!.link === model.cited[1]!.link ? [1, 1] : [1, 2],
        );
        expectMarkersMatchList(early, await listed(dialog), model.cited);
      } finally {
        model.release();
      }
      const pageCount = new Set(sources.map((s) => s.link)).size;
      // The case at hand: several chunks of one page among the sources.
      expect(pageCount).toBeLessThan(sources.length);

      await dialog.getByRole('button', { name: 'Good answer' }).waitFor();
      const shown = await markers(answer);
      expect(shown).toHaveLength(sources.length);
      const pages = await listed(dialog);
      expect(pages).toHaveLength(pageCount);
      expect(new Set(pages).size).toBe(pageCount);
      expectMarkersMatchList(shown, pages, model.cited);
      expectFirstCitedFirst(shown);
      for (const m of shown) expect(m.href).toContain('#:~:text=');
      await screenshot(host, 'citations-widget');
    });

    it('opens the page listed under each number, scrolled to the cited passage and highlighting it', async () => {
      const dialog = host.getByRole('dialog');
      const links = dialog.locator('.md a', { hasText: /^\[\d+\]$/ });
      const pages = await listed(dialog);
      for (const [i, m] of (await markers(dialog.locator('.md'))).entries()) {
        await openAndSeePassage(links.nth(i), pages[m.n - 1]!, model.cited[i]!.sentence);
      }
    });

    it('links to the pages alone with data-text-fragments="off"', async () => {
      const plain = await context.newPage();
      await plain.goto(`${site.origin}/host-plain`);
      await plain.keyboard.press('Control+k');
      const dialog = plain.getByRole('dialog', { name: 'Ask the docs' });
      await dialog.waitFor({ state: 'visible' });
      await plain.keyboard.type(QUESTION);
      await plain.keyboard.press('Enter');
      await dialog.getByRole('button', { name: 'Good answer' }).waitFor();
      const shown = await markers(dialog.locator('.md'));
      expect(shown.length).toBeGreaterThan(0);
      for (const m of shown) expect(m.href).toBe(page(m.href));
      expectMarkersMatchList(shown, await listed(dialog), model.cited);
      await plain.close();
    });

    it('logs no console errors', () => {
      expect(errors).toEqual([]);
    });
  });

  describe('in the dashboard', () => {
    let dash: Page;
    let errors: string[];
    beforeAll(async () => {
      dash = await context.newPage();
      errors = collectConsoleErrors(dash);
      await dash.goto(`${api}/dashboard/`);
      await dash.getByLabel('Operator token').fill(TOKEN);
      await dash.getByRole('button', { name: 'Log in' }).click();
      await dash.getByRole('heading', { name: 'Projects' }).waitFor();
      await dash
        .getByRole('navigation', { name: 'Dashboard' })
        .getByRole('link', { name: 'Playground' })
        .click();
      await dash.getByRole('heading', { level: 1, name: /^Playground/ }).waitFor();
    });
    afterAll(() => dash?.close());

    const listed = (answer: Locator) =>
      answer
        .locator('ol.sources a')
        .evaluateAll((as) => as.map((a) => (a as unknown as { href: string }).href));

    it('numbers citations by page while streaming, each [n] opening the page listed under n at its passage', async () => {
      model.hold();
      await dash.getByLabel('Question', { exact: true }).fill(QUESTION);
      await dash.getByRole('button', { name: 'Ask' }).click();
      const answer = dash.getByRole('region', { name: 'Answer 1' });
      const body = answer.locator('.markdown');
      let sources: PromptSource[];
      try {
        await body
          .locator('a', { hasText: /^\[\d+\]$/ })
          .nth(1)
          .waitFor();
        sources = lastSources();
        const early = await markers(body);
        expect(early.map((m) => m.n)).toEqual(
          model.cited[0]!.link === model.cited[1]!.link ? [1, 1] : [1, 2],
        );
        expectMarkersMatchList(early, await listed(answer), model.cited);
      } finally {
        model.release();
      }
      await answer.getByRole('button', { name: 'Good answer' }).waitFor();
      const pageCount = new Set(sources.map((s) => s.link)).size;
      expect(pageCount).toBeLessThan(sources.length);
      const shown = await markers(body);
      expect(shown).toHaveLength(sources.length);
      const pages = await listed(answer);
      expect(pages).toHaveLength(pageCount);
      expectMarkersMatchList(shown, pages, model.cited);
      expectFirstCitedFirst(shown);
      await screenshot(dash, 'citations-playground');

      const links = body.locator('a', { hasText: /^\[\d+\]$/ });
      for (const [i, m] of shown.entries()) {
        await openAndSeePassage(links.nth(i), pages[m.n - 1]!, model.cited[i]!.sentence);
      }
      expect(errors).toEqual([]);
    });

    it('numbers a stored answer the same way on the conversations page, its links to the pages alone', async () => {
      await dash
        .getByRole('navigation', { name: 'Dashboard' })
        .getByRole('link', { name: 'Conversations' })
        .click();
      // Newest first: the playground's conversation.
      await dash
        .getByRole('button', { name: /^Open conversation/ })
        .first()
        .click();
      const conversation = dash.getByRole('region', { name: /^Conversation \d+/ });
      const body = conversation.locator('.markdown');
      await body
        .locator('a', { hasText: /^\[\d+\]$/ })
        .first()
        .waitFor();
      const shown = await markers(body);
      expect(shown).toHaveLength(model.cited.length);
      const pages = await listed(conversation);
      expect(pages).toHaveLength(new Set(model.cited.map((c) => c.link)).size);
      expectMarkersMatchList(shown, pages, model.cited);
      expectFirstCitedFirst(shown);
      // Stored sources keep no text to find a passage in.
      for (const m of shown) expect(m.href).toBe(page(m.href));
      expect(errors).toEqual([]);
    });
  });
});
