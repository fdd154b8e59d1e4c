import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium (CI installs it in .ci/run); KBQA_CHROMIUM points elsewhere. */
export const CHROMIUM_PATH = process.env.KBQA_CHROMIUM || '/usr/bin/chromium';
const present = existsSync(CHROMIUM_PATH);
if (!present && process.env.KBQA_REQUIRE_BROWSER === '1') {
  // CI sets this, so a broken Chromium install fails the run instead of skipping the browser tests.
  throw new Error(`KBQA_REQUIRE_BROWSER=1 but ${CHROMIUM_PATH} does not exist`);
}
if (!present) {
  console.warn(`${CHROMIUM_PATH} is missing: this browser test is SKIPPED (apt-get install -y chromium).`);
}
/** `describe` when Chromium is there, `describe.skip` (announced by report-skips.js) otherwise. */
export const describeBrowser = present ? describe : describe.skip;

/**
 * Headless Chromium without any network of its own: the two background-networking flags keep it
 * from calling Google's hosts, which this machine refuses and which stalls the start.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

/** Where screenshots go: apps/api/test-artifacts/screenshots (git-ignored, kept by CI runs). */
export const SCREENSHOT_DIR = join(__dirname, '..', 'test-artifacts', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/**
 * Collects console errors and uncaught page errors of a page; tests assert the list is empty at
 * the end. `allow` drops expected ones (a refused cross-origin request logs an error by design).
 */
export function collectConsoleErrors(page: Page, allow: RegExp[] = []): string[] {
  const errors: string[] = [];
  const keep = (text: string) => {
    if (!allow.some((re) => re.test(text))) errors.push(text);
  };
  page.on('console', (msg) => {
    if (msg.type() === 'error') keep(`${page.url()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => keep(`${page.url()}: ${err.message}`));
  return errors;
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core in the page (injected through the debugging protocol, so the page's CSP does not
 * apply) and returns its serious and critical violations as `rule: selector` lines; `include` limits
 * the run to part of the page.
 */
export async function seriousAxeViolations(page: Page, include?: string): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (within) => {
    type Result = {
      violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }>;
    };
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown): Promise<Result> } }).axe;
    const result = await axe.run(
      within ? { include: [within] } : (globalThis as { document?: unknown }).document,
    );
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((v) => v.nodes.map((n) => `${v.id}: ${JSON.stringify(n.target)}`));
  }, include);
}
