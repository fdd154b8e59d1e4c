import { startServer, type TestServer } from '@kbqa/core/testing';
import type { Page } from 'playwright-core';
import { describeBrowser, screenshot, seriousAxeViolations } from './browser';
import { type DashboardBrowser, expectText, openDashboardBrowser } from './dashboard-page';
import { startTestApp, type TestApp } from './helpers';

const TOKEN = 'dashboard-a11y-operator-token-0123456789';

const SITE: Record<string, { title: string; body: string }> = {
  '/': { title: 'Acme docs', body: 'Acme is a job runner. <a href="/install">Install it</a>.' },
  '/install': { title: 'Installing Acme', body: 'Install Acme with the command acme-setup --global.' },
};

const PAGES = [
  'Projects',
  'Keys',
  'Indexes',
  'Sources',
  'Teaching',
  'Conversations',
  'Analytics',
  'Playground',
];

describeBrowser('dashboard accessibility and small screens in headless Chromium', () => {
  let t: TestApp;
  let site: TestServer;
  let base: string;
  let page: Page;
  let errors: string[];
  let dash: DashboardBrowser;

  beforeAll(async () => {
    site = await startServer((req, res) => {
      const doc = SITE[new URL(req.url ?? '/', 'http://x').pathname];
      if (!doc) return void res.writeHead(404).end();
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!doctype html><html><head><title>${doc.title}</title></head><body><p>${doc.body}</p></body></html>`,
        );
    });
    t = await startTestApp({ KBQA_ADMIN_TOKEN: TOKEN, KBQA_ALLOW_PRIVATE_HOSTS: site.hostPort });
    dash = await openDashboardBrowser(t);
    ({ base, page, errors } = dash);
  }, 60_000);

  afterAll(async () => {
    await dash?.close();
    await t?.close();
    await site?.close();
  });

  const nav = (label: string) =>
    page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: label, exact: true });
  const h1 = () => page.getByRole('heading', { level: 1 });
  /** Opens a page from the navigation and waits for its heading and its data. */
  const go = async (label: string) => {
    await nav(label).click();
    await page.getByRole('heading', { level: 1, name: new RegExp(`^${label}`) }).waitFor();
    await page.getByText('Loading…').first().waitFor({ state: 'detached' });
  };
  /** The polite live region inside `scope`, which must be in the page before anything is said. */
  const liveRegion = async (scope: string) => {
    const region = page.locator(`${scope} [aria-live="polite"]`).first();
    await region.waitFor({ state: 'attached' });
    await expect(region.textContent()).resolves.toBe('');
    return region;
  };
  /** The region's text once it matches (15 s: a hang guard). */
  const expectSaid = async (region: ReturnType<Page['locator']>, pattern: RegExp) => {
    await expectText(region, pattern, 15_000);
    return (await region.textContent()) ?? '';
  };
  /**
   * Resolves once Chart.js has taken every canvas of the page (it marks a canvas it owns with
   * `$chartjs`) and two frames have run since, so its resize observers have sized them.
   */
  const chartsDrawn = async () => {
    await page.waitForFunction(
      "[...document.querySelectorAll('canvas')].every((c) => '$chartjs' in c)",
      undefined,
      {
        polling: 'raf',
      },
    );
    await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
  };

  it('has an h1 and a page title on the login page and after login', async () => {
    await page.goto(`${base}/dashboard/`);
    await page.getByLabel('Operator token').fill(TOKEN);
    await expect(page.title()).resolves.toBe('Log in — kbqa dashboard');
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    await expect(page.title()).resolves.toBe('Projects — kbqa dashboard');
    // The login form is gone: the focus goes to the heading of what replaced it.
    await expect(page.evaluate('document.activeElement.tagName')).resolves.toBe('H1');
    await page.getByLabel('New project name').fill('Acme docs');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Created project Acme docs/ })
      .waitFor();
  });

  it('announces "Ingestion started" in a polite live region', async () => {
    await go('Indexes');
    const region = await liveRegion('section[aria-label="Start an ingestion"]');
    await page.getByLabel('Type').selectOption('website-crawler');
    await page.getByLabel('URL', { exact: true }).fill(`${site.origin}/`);
    await page.getByRole('button', { name: 'Start ingestion' }).click();
    const said = await expectSaid(region, /^Ingestion started \(task \d+\)/);
    await t.waitForTask(Number(/task (\d+)/.exec(said)?.[1]));
  });

  it('announces "Taught answer added" in a polite live region', async () => {
    await go('Teaching');
    const region = await liveRegion('main');
    await page.getByLabel('Question', { exact: true }).fill('Who maintains Acme?');
    await page.getByLabel('Answer', { exact: true }).fill('The platform team in Lisbon maintains Acme.');
    await page.getByRole('button', { name: 'Add taught answer' }).click();
    await expectSaid(region, /^Taught answer added/);
  });

  it('announces a playground answer once it is complete', async () => {
    await go('Playground');
    const region = page.locator('main [aria-live="polite"]').filter({ hasNotText: /Rated/ }).last();
    await region.waitFor({ state: 'attached' });
    await page.getByLabel('Question', { exact: true }).fill('Who maintains Acme?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page
      .getByRole('region', { name: 'Answer 1' })
      .getByRole('button', { name: 'Good answer' })
      .waitFor();
    await expectSaid(region, /^Answer 1: .*platform team in Lisbon/);
  });

  it('gives every page its own title, one h1 that takes the focus, and no serious axe violation', async () => {
    for (const label of PAGES) {
      await go(label);
      await expect(page.title()).resolves.toBe(`${label} — kbqa dashboard`);
      await expect(h1().count()).resolves.toBe(1);
      const focused = await page.evaluate(
        '[document.activeElement.tagName, document.activeElement.textContent]',
      );
      expect([label, focused]).toEqual([label, ['H1', await h1().textContent()]]);
      expect([label, await seriousAxeViolations(page)]).toEqual([label, []]);
    }
  });

  it('has no serious axe violation with a task report, a conversation or a delete confirmation open', async () => {
    await go('Indexes');
    await page
      .getByRole('button', { name: /^Report of task/ })
      .first()
      .click();
    await page.getByRole('region', { name: /^Report of task/ }).waitFor();
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await go('Conversations');
    await page
      .getByRole('button', { name: /^Open conversation/ })
      .first()
      .click();
    await page.getByRole('region', { name: /^Conversation \d+/ }).waitFor();
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await go('Sources');
    await page
      .getByRole('button', { name: /^Delete source / })
      .first()
      .click();
    await page.getByRole('button', { name: /^Yes, delete source / }).waitFor();
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: /^Yes, delete source / }).waitFor({ state: 'detached' });
  });

  it('fits every page in a 390 px wide phone screen without horizontal scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const label of PAGES) {
      await go(label);
      await chartsDrawn();
      await screenshot(page, `dashboard-phone-${label.toLowerCase()}`);
      expect([label, await seriousAxeViolations(page)]).toEqual([label, []]);
      const width = await page.evaluate('document.documentElement.scrollWidth');
      expect([label, width]).toEqual([label, expect.any(Number)]);
      expect({ label, fits: (width as number) <= 390, width }).toEqual({ label, fits: true, width });
    }
    expect(errors).toEqual([]);
  });
});
