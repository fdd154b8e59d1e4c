import type { Page } from 'playwright-core';
import request from 'supertest';
import { describeBrowser, screenshot, seriousAxeViolations } from './browser';
import {
  dashboardSteps,
  type DashboardBrowser,
  expectCount,
  expectText,
  openDashboardBrowser,
} from './dashboard-page';
import { startTestApp, type TestApp } from './helpers';

const TOKEN = 'dashboard-first-day-operator-token-0123456789';
const SITE = 'https://docs.acme.test';

const DOCS = [
  {
    source: 'install-guide',
    content:
      '# Installing Acme\n\nInstall Acme with the command acme-setup --global. It needs 512 MB of memory.',
  },
  {
    source: 'schedule-guide',
    content:
      '# Scheduling jobs\n\nA job runs on a schedule written as a cron expression in the file acme.yaml.',
  },
];

/**
 * The first day of an operator in headless Chromium: a new project's next steps, the widget
 * snippet with a real anon key, and the conversations page (search, an opened conversation beside
 * the list or, on a phone, in its place).
 */
describeBrowser('dashboard: the first day of an operator, in headless Chromium', () => {
  // A guard against hangs on a loaded machine (the app, Chromium, an ingestion and a chat).
  jest.setTimeout(120_000);
  let t: TestApp;
  let base: string;
  let page: Page;
  let errors: string[];
  let dash: DashboardBrowser;
  let go: (tab: string) => Promise<void>;
  let seeStatus: (pattern: RegExp) => Promise<string>;
  let projectId = 0;
  let anonKey = '';

  beforeAll(async () => {
    t = await startTestApp({ KBQA_ADMIN_TOKEN: TOKEN });
    dash = await openDashboardBrowser(t);
    ({ base, page, errors } = dash);
    ({ go, seeStatus } = dashboardSteps(page, base));
  }, 120_000);

  afterAll(async () => {
    await dash?.close();
    await t?.close();
  });

  const steps = () => page.getByRole('region', { name: /^Next steps for / });
  /** The state each next step shows, in order ("Done:" or "To do:"), once they have loaded. */
  const stepStates = async (): Promise<string[]> => {
    await steps().getByRole('listitem').first().waitFor();
    return steps().locator('.step-state').allTextContents();
  };
  /** Opens the Projects page again, which reads the project's progress anew. */
  const reopenProjects = async () => {
    await go('Keys');
    await go('Projects');
  };
  const focusedWithin = (selector: string) =>
    page.evaluate(`document.activeElement?.closest(${JSON.stringify(selector)}) !== null`);

  it('shows a new project its next steps, each marked done as it is done, then no more', async () => {
    await page.goto(`${base}/dashboard/`);
    await page.getByLabel('Operator token').fill(TOKEN);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByLabel('New project name').fill('Acme docs');
    await page.getByRole('button', { name: 'Create project' }).click();
    const created = await seeStatus(/Created project Acme docs \(id (\d+)\)/);
    projectId = Number(/id (\d+)/.exec(created)?.[1]);

    await expect(steps().getByRole('heading').textContent()).resolves.toBe('Next steps for Acme docs');
    expect(await stepStates()).toEqual(['To do:', 'To do:', 'To do:', 'To do:']);
    const texts = await steps().getByRole('listitem').allTextContents();
    expect(texts).toEqual([
      expect.stringMatching(/Create a key/),
      expect.stringMatching(/Add a source/),
      expect.stringMatching(/Playground/),
      expect.stringMatching(/Embed the widget/),
    ]);
    await expect(steps().getByRole('link', { name: 'Keys' }).getAttribute('href')).resolves.toBe('#/keys');
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'first-day-01-next-steps');

    // The widget snippet comes with a real anon key, made through the keys API.
    await expect(page.getByRole('region', { name: 'Embed the widget' }).textContent()).resolves.toContain(
      'data-anon-key="…"',
    );
    await page.getByRole('button', { name: 'Create an anon key for the widget' }).click();
    await seeStatus(/Anon key created/);
    const snippet = await page.getByLabel(/Widget snippet with the new anon key/).inputValue();
    anonKey = /data-anon-key="([^"]+)"/.exec(snippet)?.[1] ?? '';
    expect(anonKey).toMatch(/^kbqa_pk_/);
    expect(snippet).toBe(`<script src="${base}/widget.js" data-anon-key="${anonKey}" defer></script>`);
    await page.getByRole('button', { name: 'Copy snippet' }).click();
    await seeStatus(/Snippet copied/);
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(snippet);
    const keys = await t.query<{ kind: string }>('SELECT kind FROM api_keys WHERE project_id = ?', [
      projectId,
    ]);
    expect(keys).toEqual([{ kind: 'anon' }]);
    // The steps see the new key at once.
    await expectText(steps().locator('.step-state'), /^Done:$/);
    expect(await stepStates()).toEqual(['Done:', 'To do:', 'To do:', 'To do:']);
    await expect(
      page.evaluate("getComputedStyle(document.querySelector('ol.steps li.done .step')).textDecorationLine"),
    ).resolves.toBe('line-through');

    // A source, added through the public API with a server key.
    const serverKey = (await t.projects.createKey(projectId, 'server')).key;
    const ingest = await t.post('/v1/ingestDocuments', { api_key: serverKey, documents: DOCS }).expect(200);
    await t.waitForTask(Number(ingest.body.task_id));
    await reopenProjects();
    expect(await stepStates()).toEqual(['Done:', 'Done:', 'To do:', 'To do:']);

    // A question in the playground.
    await go('Playground');
    await page.getByLabel('Question', { exact: true }).fill('How do I install Acme?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page
      .getByRole('region', { name: 'Answer 1' })
      .getByRole('button', { name: 'Good answer' })
      .waitFor();
    await reopenProjects();
    expect(await stepStates()).toEqual(['Done:', 'Done:', 'Done:', 'To do:']);

    // The widget, on a page of an allowed origin, uses the anon key: every step is done.
    await page.getByLabel(/Allowed widget origins/).fill(SITE);
    await page.getByRole('button', { name: 'Save origins' }).click();
    await seeStatus(/Widget origins saved \(1\)/);
    await request(t.http)
      .post('/v1/newConversation')
      .set('Origin', SITE)
      .send({ anon_key: anonKey })
      .expect(200);
    await reopenProjects();
    await page.getByText(/^First steps done/).waitFor();
    await expect(steps().count()).resolves.toBe(0);
  });

  it('searches conversations by the words of their messages', async () => {
    const serverKey = (await t.projects.createKey(projectId, 'server')).key;
    for (const question of ['How do I schedule a job?', 'How much memory does Acme need?']) {
      const id = (await t.post('/v1/newConversation', { api_key: serverKey }).expect(200)).body
        .conversation_id;
      await t
        .post('/v1/serviceChat', { api_key: serverKey, question, conversation_id: id, shouldStream: false })
        .expect(200);
    }
    await go('Conversations');
    const rows = page.getByRole('region', { name: 'Conversation list' }).getByRole('row');
    // The playground's, the widget's (no message) and these two; plus the header row.
    await expectCount(rows, 5);
    // "cron" is only in the answer (the guide it quotes), "schedule" in the question too.
    await page.getByLabel('Search messages').fill('CRON schedule');
    await expectCount(rows, 2);
    await expect(rows.nth(1).textContent()).resolves.toContain('How do I schedule a job?');
    await expect(page.getByText(/^\d+ conversations?$/).textContent()).resolves.toBe('1 conversation');
    // Every word must be in the conversation: these two are in two different ones.
    await page.getByLabel('Search messages').fill('cron memory');
    await page.getByText('No conversation matches.').waitFor();
    await page.getByLabel('Search messages').fill('');
    await expectCount(rows, 5);
  });

  it('opens a conversation beside the list on a wide screen, with the focus in it and a way back', async () => {
    const list = page.getByRole('region', { name: 'Conversation list' });
    const open = page.getByRole('button', { name: /^Open conversation/ }).first();
    const name = (await open.getAttribute('aria-label')) ?? '';
    await open.click();
    const panel = page.getByRole('region', { name: /^Conversation \d+$/ });
    await panel.getByRole('heading', { level: 2 }).waitFor();
    await expectText(panel, /Question/);
    const listBox = (await list.boundingBox())!;
    const panelBox = (await panel.boundingBox())!;
    // Beside the list, not below it.
    expect(panelBox.x).toBeGreaterThanOrEqual(listBox.x + listBox.width);
    expect(panelBox.y).toBeLessThan(listBox.y + listBox.height);
    expect(await focusedWithin('section[aria-label^="Conversation "]')).toBe(true);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'first-day-02-conversation-beside');
    await panel.getByRole('button', { name: 'Back to the list' }).click();
    await panel.waitFor({ state: 'detached' });
    await expect(page.evaluate('document.activeElement.getAttribute("aria-label")')).resolves.toBe(name);
    // Escape closes it too.
    await open.click();
    await panel.waitFor();
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
  });

  it('opens a conversation in its own view on a 390 px phone, with the focus in it and a way back', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const list = page.getByRole('region', { name: 'Conversation list' });
    const open = page.getByRole('button', { name: /^Open conversation/ }).first();
    const name = (await open.getAttribute('aria-label')) ?? '';
    await open.click();
    const panel = page.getByRole('region', { name: /^Conversation \d+$/ });
    await expectText(panel, /Question/);
    // The list and its filters make way for the conversation.
    await expect(list.isVisible()).resolves.toBe(false);
    await expect(page.getByLabel('Search messages').isVisible()).resolves.toBe(false);
    expect(await focusedWithin('section[aria-label^="Conversation "]')).toBe(true);
    const panelBox = (await panel.boundingBox())!;
    expect(panelBox.x + panelBox.width).toBeLessThanOrEqual(390);
    await expect(page.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'first-day-03-conversation-phone');
    await panel.getByRole('button', { name: 'Back to the list' }).click();
    await panel.waitFor({ state: 'detached' });
    await expect(list.isVisible()).resolves.toBe(true);
    await expect(page.evaluate('document.activeElement.getAttribute("aria-label")')).resolves.toBe(name);

    // The Projects page with its widget section fits the phone too.
    await go('Projects');
    await page.getByRole('region', { name: 'Embed the widget' }).waitFor();
    await expect(page.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(errors).toEqual([]);
  });
});
