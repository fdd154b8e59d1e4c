import { startServer, type TestServer } from '@kbqa/core/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { BrowserContext, Page } from 'playwright-core';
import { describeBrowser, screenshot } from './browser';
import {
  dashboardSteps,
  type DashboardBrowser,
  expectCount,
  expectText,
  openDashboardBrowser,
} from './dashboard-page';
import { startTestApp, type TestApp } from './helpers';

const TOKEN = 'dashboard-operator-token-0123456789';

/**
 * A small documentation site on 127.0.0.1, slow enough (150 ms a page) that a crawl of it shows
 * progress, with one broken link so the task report has a skipped URL and its reason.
 */
const PAGES: Record<string, { title: string; body: string; links: string[] }> = {
  '/': {
    title: 'Acme docs',
    body: 'Acme is a job runner. Read the guides to install it, schedule jobs and tune retries.',
    links: ['/install', '/schedule', '/retries', '/missing'],
  },
  '/install': {
    title: 'Installing Acme',
    body: 'Install Acme with the command acme-setup --global. It needs 512 MB of memory.',
    links: ['/'],
  },
  '/schedule': {
    title: 'Scheduling jobs',
    body: 'A job runs on a schedule written as a cron expression in the file acme.yaml under the key cron.',
    links: ['/'],
  },
  '/retries': {
    title: 'Retries',
    body: 'A failed job is retried five times with exponential backoff; set max_retries to change the count.',
    links: ['/'],
  },
};

async function startSite(): Promise<TestServer> {
  return startServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const page = PAGES[path];
    setTimeout(() => {
      if (!page) {
        res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>not found</body></html>');
        return;
      }
      const links = page.links.map((l) => `<a href="${l}">${l}</a>`).join(' ');
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!doctype html><html><head><title>${page.title}</title></head><body><main><h1>${page.title}</h1>` +
            `<p>${page.body}</p><nav>${links}</nav></main></body></html>`,
        );
    }, 150);
  });
}

describeBrowser('dashboard in headless Chromium (walkthrough)', () => {
  let t: TestApp;
  let site: TestServer;
  let base: string;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let dash: DashboardBrowser;
  let go: (tab: string) => Promise<void>;
  let seeStatus: (pattern: RegExp) => Promise<string>;

  beforeAll(async () => {
    site = await startSite();
    t = await startTestApp({ KBQA_ADMIN_TOKEN: TOKEN, KBQA_ALLOW_PRIVATE_HOSTS: site.hostPort });
    dash = await openDashboardBrowser(t);
    ({ base, context, page, errors } = dash);
    ({ go, seeStatus } = dashboardSteps(page, base));
  }, 60_000);

  afterAll(async () => {
    await dash?.close();
    await t?.close();
    await site?.close();
  });

  const ask = async (question: string, n: number) => {
    await page.getByLabel('Question', { exact: true }).fill(question);
    await page.getByRole('button', { name: 'Ask' }).click();
    const answer = page.getByRole('region', { name: `Answer ${n}` });
    // The rating buttons appear with the message id, the stream's last event.
    await answer.getByRole('button', { name: 'Good answer' }).waitFor();
    return answer;
  };
  let serverKey = '';
  let projectId = 0;

  it('logs in with the operator token and creates a project', async () => {
    await page.goto(`${base}/dashboard/`);
    await page.getByLabel('Operator token').fill(TOKEN);
    await screenshot(page, 'dashboard-01-login');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();

    await page.getByLabel('New project name').fill('Acme docs');
    await page.getByRole('button', { name: 'Create project' }).click();
    const created = await seeStatus(/Created project Acme docs \(id (\d+)\)/);
    projectId = Number(/id (\d+)/.exec(created)?.[1]);
    expect(await page.getByLabel('Project', { exact: true }).inputValue()).toBe(String(projectId));
    const rows = await t.query<{ name: string }>('SELECT name FROM projects WHERE id = ?', [projectId]);
    expect(rows[0]?.name).toBe('Acme docs');
    await screenshot(page, 'dashboard-02-projects');
  });

  it('creates a server key, shows it once with a copy button, and lists it by prefix', async () => {
    await go('Keys');
    await page.getByLabel('Key kind').selectOption('server');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByLabel(/New key \(shown once/);
    await shown.waitFor();
    serverKey = await shown.inputValue();
    expect(serverKey).toMatch(/^kbqa_sk_/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await seeStatus(/copied/);
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(serverKey);
    // The key works on the public API, and the list shows its prefix, not the secret.
    const res = await fetch(`${base}/v1/getSources`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: serverKey }),
    });
    expect(res.status).toBe(200);
    const table = page.getByRole('table');
    await expectText(table, new RegExp(serverKey.slice(0, 12)));
    expect(await table.textContent()).not.toContain(serverKey);
    await screenshot(page, 'dashboard-03-keys');

    // The chat platforms of the project: configured from here, the secrets never shown again.
    const platforms = page.getByRole('list', { name: 'Chat platforms' });
    await expectText(platforms, /Slack: not configured/);
    await page.getByRole('button', { name: 'Configure Slack' }).click();
    await page.getByLabel('Signing secret').fill('dashboard-signing-secret');
    await page.getByLabel('Bot token (xoxb-…)').fill('xoxb-dashboard-token');
    await page.getByRole('button', { name: 'Save Slack' }).click();
    await seeStatus(/Slack saved/);
    await expectText(platforms, /Slack: configured; last event: none yet/);
    expect(await platforms.textContent()).toContain(`/integrations/slack/${projectId}/events`);
    expect(await page.content()).not.toContain('dashboard-signing-secret');
    const [stored] = await t.query<{ settings: string }>(
      "SELECT settings FROM chat_integrations WHERE project_id = ? AND platform = 'slack'",
      [projectId],
    );
    expect(stored!.settings).not.toContain('xoxb-dashboard-token');
  });

  it('starts a crawl of a local site, shows its progress to completion and its per-URL report', async () => {
    await go('Indexes');
    await page.getByLabel('Type').selectOption('website-crawler');
    await page.getByLabel('URL', { exact: true }).fill(`${site.origin}/`);
    await page.getByRole('button', { name: 'Start ingestion' }).click();
    const started = await seeStatus(/Ingestion started \(task (\d+)\)/);
    const taskId = /task (\d+)/.exec(started)?.[1];
    // Live progress while it runs (pages take 150 ms each), then "completed".
    const progress = page.getByLabel(`Task ${taskId} progress`);
    await progress.waitFor({ timeout: 10_000 });
    await screenshot(page, 'dashboard-04-crawl-running');
    const row = page.getByRole('row', { name: new RegExp(`^${taskId} `) });
    await expectText(row, /completed/, 30_000);
    await expect(progress.count()).resolves.toBe(0);

    // The index row: type, URL and pages.
    const indexRow = page.getByRole('row', { name: new RegExp(`website-crawler ${escape(site.origin)}`) });
    await expectText(indexRow.getByRole('cell').nth(2), /^4$/);

    await page.getByRole('button', { name: `Report of task ${taskId}` }).click();
    const report = page.getByRole('region', { name: `Report of task ${taskId}` });
    await expectText(report, /4 indexed, 1 skipped/);
    await expectText(report, new RegExp(`${escape(site.origin)}/missing`));
    await expectText(report, /404/);
    await screenshot(page, 'dashboard-05-report');
  });

  it('switches auto sync on for the index', async () => {
    await page.getByLabel(`Auto sync ${site.origin}/`).check();
    await seeStatus(/Auto sync of .* is on/);
    const [ix] = await t.query<{ auto_sync: number; next_sync_at: string | null }>(
      'SELECT auto_sync, next_sync_at FROM indexes WHERE project_id = ?',
      [projectId],
    );
    expect(ix?.auto_sync).toBe(1);
    expect(ix?.next_sync_at).not.toBeNull();
    await expect(page.getByLabel(`Auto sync ${site.origin}/`).isChecked()).resolves.toBe(true);
  });

  it('answers in the playground with sources, and rates the answer', async () => {
    await go('Playground');
    const answer = await ask('How do I install Acme?', 1);
    await expectText(answer, /acme-setup --global/);
    // Sources by page title, each with its address beneath.
    const source = answer.locator('ol.sources li').filter({ hasText: 'Installing Acme' }).first();
    await expect(source.getByRole('link', { name: 'Installing Acme' }).count()).resolves.toBe(1);
    await expect(source.locator('.address').textContent()).resolves.toBe(`${site.origin}/install`);
    await answer.getByRole('button', { name: 'Good answer' }).click();
    await seeStatus(/Rated good/);
    await expect(
      answer.getByRole('button', { name: 'Good answer' }).getAttribute('aria-pressed'),
    ).resolves.toBe('true');
    const rated = await t.query<{ rating_value: number }>(
      "SELECT rating_value FROM messages WHERE project_id = ? AND sender = 'AI'",
      [projectId],
    );
    expect(rated.map((r) => r.rating_value)).toEqual([1]);
    // A follow-up stays in the same conversation.
    await ask('And how much memory does it need?', 2);
    const conversations = await t.query<{ n: number }>(
      'SELECT count(DISTINCT conversation_id) AS n FROM messages WHERE project_id = ?',
      [projectId],
    );
    expect(conversations[0]?.n).toBe(1);
    await screenshot(page, 'dashboard-06-playground');
  });

  it('switches the export on, after which getMessagesData answers', async () => {
    const exportData = () =>
      fetch(`${base}/v1/getMessagesData`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: serverKey }),
      });
    expect((await exportData()).status).toBe(400); // EXPORT_DISABLED
    await go('Projects');
    // The checkbox sits on its label's line, before it.
    const box = (await page.getByLabel('Message export (getMessagesData)').boundingBox())!;
    const label = (await page.locator('label[for=export]').boundingBox())!;
    expect(Math.abs(box.y + box.height / 2 - (label.y + label.height / 2))).toBeLessThan(4);
    expect(label.x).toBeGreaterThan(box.x + box.width);
    await page.getByLabel('Message export (getMessagesData)').check();
    await seeStatus(/Message export is on/);
    const res = await exportData();
    expect(res.status).toBe(200);
    const rows = (await res.json()) as Array<Record<string, unknown>>;
    expect(JSON.stringify(rows)).toContain('How do I install Acme?');
  });

  it('lists the allowed widget origins of the project, refusing one that is not an origin', async () => {
    const origins = page.getByLabel(/Allowed widget origins/);
    await origins.fill('https://docs.acme.test/guide');
    await page.getByRole('button', { name: 'Save origins' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /docs\.acme\.test\/guide/ })
      .waitFor();
    await origins.fill('https://docs.acme.test\nhttp://127.0.0.1:8080');
    await page.getByRole('button', { name: 'Save origins' }).click();
    await seeStatus(/Widget origins saved \(2\)/);
    const [row] = await t.query<{ allowed_origins: string }>(
      'SELECT allowed_origins FROM projects WHERE id = ?',
      [projectId],
    );
    expect(JSON.parse(row?.allowed_origins ?? '[]')).toEqual([
      'https://docs.acme.test',
      'http://127.0.0.1:8080',
    ]);
  });

  it('finds the pages of an index by search and deletes one', async () => {
    await go('Sources');
    await page.getByLabel('Index').selectOption({ label: `website-crawler: ${site.origin}/` });
    await expectText(page.getByText(/^\d+ sources?/), /^4 sources/);
    await page.getByLabel('Search sources').fill('retr');
    await expectText(page.getByText(/^\d+ sources?/), /^1 source/);
    // The page's title, its address beneath.
    const cell = page.getByRole('cell').filter({ hasText: 'Retries' });
    await expect(cell.getByRole('link', { name: 'Retries' }).count()).resolves.toBe(1);
    await expectText(cell.locator('.address'), new RegExp(`^${escape(site.origin)}/retries$`));
    // Delete asks first; Cancel keeps the page, and only "Yes, delete" removes it.
    await page.getByRole('button', { name: `Delete source ${site.origin}/retries` }).click();
    const yes = page.getByRole('button', { name: `Yes, delete source ${site.origin}/retries` });
    await yes.waitFor();
    await page
      .getByRole('group', { name: 'Delete Retries?' })
      .getByRole('button', { name: 'Cancel' })
      .click();
    await yes.waitFor({ state: 'detached' });
    await expect(page.evaluate('document.activeElement.getAttribute("aria-label")')).resolves.toBe(
      `Delete source ${site.origin}/retries`,
    );
    const kept = await t.query<{ n: number }>('SELECT count(*) AS n FROM sources WHERE source = ?', [
      `${site.origin}/retries`,
    ]);
    expect(kept[0]?.n).toBe(1);
    await page.getByRole('button', { name: `Delete source ${site.origin}/retries` }).click();
    await yes.click();
    await seeStatus(/Deleted .*\/retries/);
    await expectText(page.getByText(/^\d+ sources?/), /^0 sources/);
    const left = await t.query<{ source: string }>('SELECT source FROM sources WHERE project_id = ?', [
      projectId,
    ]);
    expect(left.map((r) => r.source).sort()).toEqual(
      ['/', '/install', '/schedule'].map((x) => `${site.origin}${x}`),
    );
    await screenshot(page, 'dashboard-06b-sources');
  });

  it('teaches an answer that the playground then uses first and cites, and that delete_all keeps', async () => {
    await go('Teaching');
    await page.getByLabel('Question', { exact: true }).fill('Who maintains Acme?');
    await page
      .getByLabel('Answer', { exact: true })
      .fill('Acme is maintained by the platform team in Lisbon.');
    await page.getByRole('button', { name: 'Add taught answer' }).click();
    await seeStatus(/Taught answer added/);
    await expectText(page.getByRole('table'), /platform team in Lisbon/);

    await go('Playground');
    await page.getByRole('button', { name: 'New conversation' }).click();
    const answer = await ask('Who maintains Acme?', 1);
    const text = (await answer.locator('.markdown').textContent()) ?? '';
    expect(text.trim().startsWith('Acme is maintained by the platform team in Lisbon.')).toBe(true);
    const [taught] = await t.query<{ source: string }>(
      "SELECT source FROM sources WHERE project_id = ? AND kind = 'teach'",
      [projectId],
    );
    // Cited under its question, the title of a taught answer's source.
    expect(taught?.source).toMatch(/^taught:/);
    expect(await answer.locator('ol.sources li').first().textContent()).toBe('Who maintains Acme?');

    const deleted = await fetch(`${base}/v1/deleteSource`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: serverKey, delete_all: true }),
    });
    expect(deleted.status).toBe(200);
    await go('Sources');
    await expectText(page.getByText(/^\d+ sources?/), /^1 source/);
    await expectText(page.getByRole('table'), new RegExp(escape(taught?.source ?? '?')));
    await go('Teaching');
    await expectText(page.getByRole('table'), /platform team in Lisbon/);
    await screenshot(page, 'dashboard-07-teaching');
  });

  it('lists unanswerable questions as documentation gaps, grouped by wording, with charts', async () => {
    await go('Playground');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await ask('How do I configure the quantum flux capacitor?', 1);
    await ask('How can I configure a quantum flux capacitor', 2);
    await go('Analytics');
    const gaps = page.getByRole('region', { name: 'Documentation gaps' });
    const row = gaps.getByRole('row', { name: /quantum flux capacitor/ });
    await expectText(row.getByRole('cell').nth(1), /^2$/); // asked twice
    await expectText(row.getByRole('cell').nth(2), /^2$/); // both without a relevant source
    await expect(row.count()).resolves.toBe(1);
    // Nothing else is a gap: the other answers were found in the docs (one was rated good).
    await expect(gaps.getByRole('row').count()).resolves.toBe(2);
    await expectText(page.getByText(/^Questions per day/), /\(5 in all\)/);
    await expectText(page.getByText(/^Ratings of/), /20% good/);
    await screenshot(page, 'dashboard-08-analytics');
  });

  it('filters conversations by rating and shows one with its messages, sources and ratings', async () => {
    await go('Conversations');
    await expectCount(page.getByRole('row'), 4); // header + 3 conversations
    await page.getByLabel('Rating').selectOption('good');
    await expectCount(page.getByRole('row'), 2);
    await page.getByRole('button', { name: /^Open conversation/ }).click();
    const conversation = page.getByRole('region', { name: /^Conversation \d+/ });
    await expectText(conversation, /How do I install Acme\?/);
    await expectText(conversation, /rated good/);
    await expectText(conversation, new RegExp(`${escape(site.origin)}/install`));
    await screenshot(page, 'dashboard-09-conversations');
  });

  it('counts the questions by channel, one asked over MCP under MCP', async () => {
    const client = new Client({ name: 'kbqa-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', base), {
        requestInit: { headers: { Authorization: `Bearer ${serverKey}` } },
      }),
    );
    try {
      const asked = await client.callTool({ name: 'ask', arguments: { question: 'How do I retry a job?' } });
      expect(asked.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    await go('Analytics');
    await expectText(page.getByText(/^Questions per day/), /\(6 in all\)/);
    const counts = page.locator('ul.channel-counts li');
    await expect(counts.allTextContents()).resolves.toEqual([
      'API: 5',
      'Widget: 0',
      'Slack: 0',
      'Discord: 0',
      'MCP: 1',
    ]);
  });

  it('logs out, after which the session no longer opens the operator API', async () => {
    const cookies = await context.cookies(base);
    const session = cookies.find((c) => c.name === 'kbqa_session');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Strict');
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByLabel('Operator token').waitFor();
    const res = await fetch(`${base}/admin/v1/projects`, {
      headers: { cookie: `kbqa_session=${session?.value}` },
    });
    expect(res.status).toBe(401);
    expect(errors).toEqual([]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
