import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { collectConsoleErrors, launchBrowser } from './browser';
import type { TestApp } from './helpers';

/** The dashboard of a test app, open in headless Chromium on a desktop-sized page. */
export interface DashboardBrowser {
  /** The app's own origin on 127.0.0.1. */
  base: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** The page's console errors so far (tests expect none at the end). */
  errors: string[];
  close(): Promise<void>;
}

/** Serves the test app on a loopback port and opens a page that may use the clipboard. */
export async function openDashboardBrowser(t: TestApp): Promise<DashboardBrowser> {
  const server = t.app.getHttpServer() as Server;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = await context.newPage();
  return { base, browser, context, page, errors: collectConsoleErrors(page), close: () => browser.close() };
}

/** Steps every dashboard walkthrough takes: log in, open a page, read a status line. */
export function dashboardSteps(page: Page, base: string) {
  return {
    async logIn(token: string): Promise<void> {
      await page.goto(`${base}/dashboard/`);
      await page.getByLabel('Operator token').fill(token);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { level: 1, name: /^Projects/ }).waitFor();
    },
    /** Opens a page from the navigation and waits for its heading. */
    async go(tab: string): Promise<void> {
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: tab }).click();
      await page.getByRole('heading', { level: 1, name: new RegExp(`^${tab}`) }).waitFor();
    },
    /** Waits for a status line matching `pattern` and returns its text. */
    async seeStatus(pattern: RegExp): Promise<string> {
      const line = page.getByRole('status').filter({ hasText: pattern }).first();
      await line.waitFor({ timeout: 15_000 });
      return (await line.textContent()) ?? '';
    },
    /** Waits until nothing on the page says it is loading (its API calls have answered). */
    async settled(): Promise<void> {
      // A string: evaluated in the page, where `document` exists (this file compiles without DOM types).
      await page.waitForFunction("!document.body.innerText.includes('Loading…')");
    },
  };
}

/**
 * Waits until the first element of `locator` has text matching `pattern` (the page updates
 * after its API calls return); Playwright re-checks on every change of the page.
 */
export async function expectText(locator: Locator, pattern: RegExp, timeoutMs = 10_000): Promise<void> {
  try {
    await locator.first().filter({ hasText: pattern }).waitFor({ timeout: timeoutMs });
  } catch {
    const last = await locator
      .first()
      .textContent({ timeout: 1 })
      .catch(() => null);
    throw new Error(`expected text matching ${pattern}, last seen: ${JSON.stringify(last)}`);
  }
}

/** Waits until `locator` matches exactly `count` elements. */
export async function expectCount(locator: Locator, count: number, timeoutMs = 10_000): Promise<void> {
  if (count > 0) await locator.nth(count - 1).waitFor({ state: 'attached', timeout: timeoutMs });
  await locator.nth(count).waitFor({ state: 'detached', timeout: timeoutMs });
}
