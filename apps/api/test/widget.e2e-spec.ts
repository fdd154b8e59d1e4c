import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  collectConsoleErrors,
  describeBrowser,
  launchBrowser,
  screenshot,
  seriousAxeViolations,
} from './browser';
import { startFakeLlm, type FakeLlm } from './fake-llm';
import { startTestApp, type TestApp, type TestProject } from './helpers';

// The callbacks given to evaluate() run in the page; apps/api compiles without the DOM library,
// so the little of it they use is declared here, for this file only.
interface PageNode {
  tagName: string;
  textContent: string | null;
  shadowRoot: { activeElement: PageNode | null; querySelector(selector: string): PageNode | null } | null;
}
declare const document: { activeElement: PageNode | null; querySelector(selector: string): PageNode | null };
declare function getComputedStyle(
  el: unknown,
): Record<'color' | 'letterSpacing' | 'fontFamily' | 'borderBottomWidth' | 'backgroundColor', string>;

const DOCS = [
  {
    source: 'https://docs.example.com/billing',
    content:
      '# Billing\n\nInvoices are sent on the first working day of each month by email. ' +
      'Refunds are paid back to the original card within ten days.',
  },
  {
    source: 'https://docs.example.com/teams',
    content:
      '# Teams\n\nEach team can have up to 50 members. Team owners invite new members from the Team settings page.',
  },
];

/** A host page: the widget script, plus CSS that would break an unprotected widget. */
function hostPage(apiBase: string, opts: { anonKey?: string; dark?: boolean }): string {
  const key = opts.anonKey === undefined ? '' : ` data-anon-key="${opts.anonKey}"`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<style>
  button { display: none !important; color: red !important; }
  * { font-family: "Comic Sans MS", cursive; letter-spacing: 3px; }
  body { ${opts.dark ? 'background: #111; color: #eee;' : 'background: #fff; color: #222;'} }
</style></head>
<body><h1>Product docs</h1><header id="page-header">Page header</header>
<form><label id="page-label">Page label</label></form><p class="q" id="page-q">Page paragraph</p>
<button id="page-button">Page button</button>
<script src="${apiBase}/widget.js"${key} defer></script></body></html>`;
}

/** Serves the host pages from an origin of its own (127.0.0.1, another port). */
async function startHost(pages: Record<string, string>): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const page = pages[req.url ?? ''];
    res.writeHead(page ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(page ?? 'not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const close = (server: Server) => new Promise<void>((r) => server.close(() => r()));

describeBrowser('Widget in headless Chromium (e2e)', () => {
  let t: TestApp;
  let p: TestProject;
  let api: string;
  let allowed: { server: Server; origin: string };
  let refused: { server: Server; origin: string };
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp();
    p = await t.createProject('widget');
    const res = await t.post('/v1/ingestDocuments', { api_key: p.serverKey, documents: DOCS }).expect(200);
    await t.waitForTask(res.body.task_id);
    const server = t.app.getHttpServer() as Server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const pages = {
      '/': hostPage(api, { anonKey: p.anonKey }),
      '/dark': hostPage(api, { anonKey: p.anonKey, dark: true }),
      '/nokey': hostPage(api, {}),
    };
    allowed = await startHost(pages);
    refused = await startHost(pages);
    await t.projects.setAllowedOrigins(p.id, [allowed.origin]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([allowed, refused].filter(Boolean).map((h) => close(h.server)));
    await close(t.app.getHttpServer() as Server);
    await t.close();
  });

  const aiMessages = () =>
    t.query<{ id: number; conversation_id: number; rating_value: number }>(
      "SELECT id, conversation_id, rating_value FROM messages WHERE project_id = ? AND sender = 'AI' ORDER BY created_at, id",
      [p.id],
    );
  const count = async (table: string) =>
    (await t.query<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE project_id = ?`, [p.id]))[0]!.n;

  /** The widget's text as a reader sees it (innerText, so hidden parts are left out). */
  const visibleText = (locator: Locator) =>
    locator.evaluate((el) => (el as unknown as { innerText: string }).innerText);
  /** Which element has the focus, looking through the widget's shadow root. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const host = document.activeElement;
      const inner = host?.shadowRoot?.activeElement;
      return inner
        ? `${host.tagName.toLowerCase()} > ${inner.tagName.toLowerCase()}:${inner.textContent ?? ''}`
        : host?.tagName.toLowerCase();
    });

  async function ask(page: Page, question: string, answers: number): Promise<void> {
    await page.keyboard.type(question);
    await page.keyboard.press('Enter');
    // Rating buttons appear when an answer is complete (its message id arrived).
    await page
      .getByRole('button', { name: 'Good answer' })
      .nth(answers - 1)
      .waitFor({ state: 'visible' });
  }

  describe('on a page of a listed origin', () => {
    let page: Page;
    let errors: string[];
    beforeAll(async () => {
      page = await browser.newPage();
      errors = collectConsoleErrors(page);
      await page.goto(`${allowed.origin}/`);
    });
    afterAll(() => page?.close());

    it('shows the launcher despite hostile page CSS, and its own CSS does not leak out', async () => {
      const launcher = page.getByRole('button', { name: /Ask the docs/ });
      await launcher.waitFor({ state: 'visible' });
      expect(await launcher.evaluate((el) => getComputedStyle(el).color)).not.toBe('rgb(255, 0, 0)');
      expect(await launcher.evaluate((el) => getComputedStyle(el).letterSpacing)).toBe('normal');
      expect(await launcher.evaluate((el) => getComputedStyle(el).fontFamily)).toMatch(/^system-ui/);
      expect(await page.locator('#page-button').isVisible()).toBe(false);
      const header = await page
        .locator('#page-header')
        .evaluate((el) => getComputedStyle(el).borderBottomWidth);
      expect(header).toBe('0px');
      expect(await page.locator('#page-q').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(
        'rgba(0, 0, 0, 0)',
      );
      expect(await page.locator('kbqa-widget').getAttribute('data-theme')).toBe('light');
      expect(await page.getByRole('dialog').count()).toBe(0);
    });

    it('opens with Ctrl+K, answers a question asked with the keyboard, with sources', async () => {
      await page.keyboard.press('Control+k');
      const dialog = page.getByRole('dialog', { name: 'Ask the docs' });
      await dialog.waitFor({ state: 'visible' });
      expect(await focused(page)).toBe('kbqa-widget > textarea:');
      expect(await dialog.getByLabel('Your question').isVisible()).toBe(true);
      await ask(page, 'When are invoices sent?', 1);
      const text = await visibleText(dialog);
      expect(text).toContain('When are invoices sent?');
      expect(text).toContain('first working day of each month');
      const source = dialog.getByRole('link', { name: 'docs.example.com/billing' });
      expect(await source.getAttribute('href')).toBe('https://docs.example.com/billing');
      expect(await source.getAttribute('target')).toBe('_blank');
      expect(await source.getAttribute('rel')).toContain('noopener');
      await screenshot(page, 'widget-answer');
    });

    it('stores a thumbs-up and shows it as pressed', async () => {
      const good = page.getByRole('button', { name: 'Good answer' });
      await good.click();
      await page.locator('kbqa-widget button[aria-label="Good answer"][aria-pressed="true"]').waitFor();
      expect(await page.getByRole('button', { name: 'Bad answer' }).getAttribute('aria-pressed')).toBe(
        'false',
      );
      const [message] = await aiMessages();
      expect(message?.rating_value).toBe(1);
    });

    it('keeps a follow-up question in the same conversation', async () => {
      await page.getByLabel('Your question').focus();
      await ask(page, 'How do team owners invite new members?', 2);
      expect(await visibleText(page.getByRole('dialog'))).toContain('from the Team settings page');
      const [first, second] = await aiMessages();
      expect(second?.conversation_id).toBe(first?.conversation_id);
      expect(await count('conversations')).toBe(1);
      await screenshot(page, 'widget-follow-up');
    });

    it('starts a fresh conversation with "New conversation", ending the old one', async () => {
      const [first] = await aiMessages();
      await page.getByRole('button', { name: 'New conversation' }).click();
      expect(await visibleText(page.getByRole('dialog'))).not.toContain('Team settings page');
      expect(await focused(page)).toBe('kbqa-widget > textarea:');
      await ask(page, 'When are refunds paid?', 1);
      const latest = (await aiMessages()).at(-1)!;
      expect(latest.conversation_id).not.toBe(first!.conversation_id);
      const [ended] = await t.query<{ ended_at: string | null }>(
        'SELECT ended_at FROM conversations WHERE id = ?',
        [first!.conversation_id],
      );
      expect(ended?.ended_at).not.toBeNull();
    });

    it('closes on Escape and gives the focus back to the launcher', async () => {
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      expect(await focused(page)).toMatch(/^kbqa-widget > button:Ask the docs/);
      // Tab from the launcher and Enter reopens it: the keyboard alone is enough.
      await page.keyboard.press('Enter');
      await page.getByRole('dialog').waitFor({ state: 'visible' });
      expect(await visibleText(page.getByRole('dialog'))).toContain('When are refunds paid?');
    });

    it('logs no console errors', () => {
      expect(errors).toEqual([]);
    });
  });

  it('follows a dark host page', async () => {
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    await page.goto(`${allowed.origin}/dark`);
    await page.getByRole('button', { name: /Ask the docs/ }).waitFor({ state: 'visible' });
    expect(await page.locator('kbqa-widget').getAttribute('data-theme')).toBe('dark');
    await page.keyboard.press('Control+k');
    const dialog = page.getByRole('dialog', { name: 'Ask the docs' });
    await dialog.waitFor({ state: 'visible' });
    const background = await dialog.evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(background).toBe('rgb(22, 25, 29)');
    await ask(page, 'When are invoices sent?', 1);
    await screenshot(page, 'widget-dark');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says in the panel when the script tag has no anon key', async () => {
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    const logged: string[] = [];
    page.on('console', (m) => logged.push(m.text()));
    await page.goto(`${allowed.origin}/nokey`);
    await page.keyboard.press('Control+k');
    const alert = page.getByRole('dialog').getByRole('alert');
    await alert.waitFor({ state: 'visible' });
    expect(await alert.innerText()).toContain('needs a data-anon-key attribute');
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    expect(errors).toEqual([]);
    expect(logged).toEqual([]);
    await page.close();
  });

  it('refuses a page of an origin the project does not list: a message, no answer, nothing stored', async () => {
    const page = await browser.newPage();
    // The browser reports the refused preflight itself; that is the expected outcome here.
    const errors = collectConsoleErrors(page, [/CORS policy/, /Failed to load resource: net::ERR_FAILED/]);
    const before = [await count('conversations'), await count('messages')];
    await page.goto(`${refused.origin}/`);
    await page.keyboard.press('Control+k');
    await page.getByRole('dialog').waitFor({ state: 'visible' });
    await page.keyboard.type('When are invoices sent?');
    await page.keyboard.press('Enter');
    const alert = page.getByRole('dialog').getByRole('alert');
    await page.waitForFunction(() =>
      Boolean(document.querySelector('kbqa-widget')?.shadowRoot?.querySelector('[role=alert]')?.textContent),
    );
    expect(await alert.innerText()).toContain('not be allowed to use it');
    const text = await visibleText(page.getByRole('dialog'));
    expect(text).not.toContain('first working day');
    expect(await page.getByRole('button', { name: 'Good answer' }).count()).toBe(0);
    expect([await count('conversations'), await count('messages')]).toEqual(before);
    // The reader's question waits in the box, to send again once the site is allowed.
    await expect(page.getByLabel('Your question').inputValue()).resolves.toBe('When are invoices sent?');
    await screenshot(page, 'widget-refused-origin');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('has no serious or critical axe-core violation, closed or open with an answer', async () => {
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    await page.goto(`${allowed.origin}/`);
    await page.getByRole('button', { name: /Ask the docs/ }).waitFor({ state: 'visible' });
    await expect(seriousAxeViolations(page, 'kbqa-widget')).resolves.toEqual([]);
    await page.getByRole('button', { name: /Ask the docs/ }).click();
    await ask(page, 'When are invoices sent?', 1);
    await expect(seriousAxeViolations(page, 'kbqa-widget')).resolves.toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('on a touch phone is a full-screen sheet with its rating buttons in sight, and no Ctrl K hint', async () => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
    });
    const page = await context.newPage();
    const errors = collectConsoleErrors(page);
    await page.goto(`${allowed.origin}/`);
    const launcher = page.getByRole('button', { name: /Ask the docs/ });
    await launcher.waitFor({ state: 'visible' });
    await expect(page.evaluate("matchMedia('(pointer: coarse)').matches")).resolves.toBe(true);
    await expect(visibleText(launcher)).resolves.toBe('Ask the docs');
    await launcher.click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor({ state: 'visible' });
    await expect(dialog.boundingBox()).resolves.toEqual({ x: 0, y: 0, width: 390, height: 844 });
    await ask(page, 'When are invoices sent?', 1);
    await ask(page, 'How many members can a team have?', 2);
    // The last answer's rating buttons are inside the scrolled log and the screen, not cut off.
    const log = (await dialog.locator('.log').boundingBox())!;
    for (const name of ['Good answer', 'Bad answer']) {
      const box = (await page.getByRole('button', { name }).nth(1).boundingBox())!;
      expect(box.y).toBeGreaterThanOrEqual(log.y);
      expect(box.y + box.height).toBeLessThanOrEqual(Math.min(log.y + log.height, 844));
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    await screenshot(page, 'widget-phone');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describeBrowser('Widget renders answers as sanitized Markdown (e2e, fake LLM)', () => {
  let llm: FakeLlm;
  let t: TestApp;
  let host: { server: Server; origin: string };
  let browser: Browser;

  beforeAll(async () => {
    llm = await startFakeLlm();
    t = await startTestApp({
      KBQA_LLM: 'openai',
      KBQA_LLM_BASE_URL: llm.baseUrl,
      KBQA_LLM_MODEL: 'fake-model',
    });
    const p = await t.createProject('markdown');
    const res = await t.post('/v1/ingestDocuments', { api_key: p.serverKey, documents: DOCS }).expect(200);
    await t.waitForTask(res.body.task_id);
    const server = t.app.getHttpServer() as Server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    host = await startHost({ '/': hostPage(api, { anonKey: p.anonKey }) });
    await t.projects.setAllowedOrigins(p.id, [host.origin]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    if (host) await close(host.server);
    await close(t.app.getHttpServer() as Server);
    await t.close();
    await llm.close();
  });

  it('shows emphasis, code and lists, and drops scripts, event handlers and javascript: links', async () => {
    // The model's answer, streamed in pieces that split the Markdown mid-syntax.
    llm.script = {
      kind: 'answer',
      pieces: [
        'Invoices go out **monthly**. Call `invoice.send()` to',
        ' resend one.\n\n- by email\n- on the first working day\n\n',
        '<img src="x" onerror="window.__kbqaPwned = 1"> <script>window.__kbqaPwned = 2</script>',
        '[click me](javascript:window.__kbqaPwned=3) and [the billing page](https://docs.example.com/billing)',
      ],
    };
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    await page.goto(`${host.origin}/`);
    await page.keyboard.press('Control+k');
    const dialog = page.getByRole('dialog', { name: 'Ask the docs' });
    await dialog.waitFor({ state: 'visible' });
    await page.keyboard.type('When are invoices sent?');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Good answer' }).waitFor({ state: 'visible' });

    expect(await dialog.locator('strong', { hasText: 'monthly' }).count()).toBe(1);
    expect(await dialog.locator('code', { hasText: 'invoice.send()' }).count()).toBe(1);
    expect(await dialog.locator('li').filter({ hasText: 'on the first working day' }).count()).toBe(1);
    expect(await dialog.locator('img, script').count()).toBe(0);
    const link = dialog.getByRole('link', { name: 'the billing page' });
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toContain('noopener');
    const hrefs = await dialog
      .locator('a')
      .evaluateAll((as) =>
        as.map(
          (a) => (a as unknown as { getAttribute(n: string): string | null }).getAttribute('href') ?? '',
        ),
      );
    expect(hrefs.some((h) => h.toLowerCase().startsWith('javascript:'))).toBe(false);
    expect(await page.evaluate('window.__kbqaPwned')).toBeUndefined();
    await screenshot(page, 'widget-markdown');
    expect(errors).toEqual([]);
    await page.close();
  });
});
