import { access, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KbqaError, type AddressGuard } from '@kbqa/core';
import { collect, describeLoaderContract } from '@kbqa/core/testing';
import {
  createBareRepo,
  createGitSpy,
  startGitHttpServer,
  type GitHttpServer,
} from '../test/git-http-server';
import { GithubLoader, pinnedResolve, type GithubLoaderOptions } from './github.loader';

const allowAll: AddressGuard = { resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]) };

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe(GithubLoader.name, () => {
  let root: string;
  let scratch: string;
  let server: GitHttpServer;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'kbqa-repos-'));
    scratch = await mkdtemp(join(tmpdir(), 'kbqa-scratch-'));
    await createBareRepo(root, 'acme', 'docs', {
      'README.md': '# Acme\n\nWelcome to Acme.\n',
      'docs/guide.md': '---\nsidebar_position: 2\n---\n# Guide\n\n## Install\n\nRun the installer.\n',
      'docs/nested/deeper/README': 'A plain readme deep in the tree.\n',
      'docs/page.mdx': [
        '---',
        'title: "Using widgets"',
        '---',
        "import Tabs from '@theme/Tabs';",
        'import {',
        '  TabItem,',
        "} from '@theme/TabItem';",
        'export const meta = { hidden: true };',
        '',
        '## Widgets',
        '',
        '<Tabs groupId="os">',
        '<TabItem value="linux" label="Linux">',
        'Widgets spin <b>fast</b> on Linux. {/* internal note */}',
        '</TabItem>',
        '</Tabs>',
        '',
        '```jsx',
        '<Widget size="big" />',
        '```',
      ].join('\n'),
      'docs/intro.rst':
        'Introduction\n============\n\nSome *text*.\n\nUsage\n-----\n\n.. code-block:: python\n\n   print("hi")\n',
      'docs/manual.adoc': '= Manual\n\n== Setup\n\n[source,bash]\n----\nmake install\n----\n',
      'docs/logo.md': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x1a, 0x0a]),
      'docs/huge.md': `# Huge\n\n${'word '.repeat(1000)}\n`,
      'docs/my notes.txt': 'Plain text notes.\n',
      'node_modules/pkg/README.md': '# Not ours\n',
      'vendor/lib/doc.md': '# Vendored\n',
      'dist/index.md': '# Built\n',
      'src/index.js': 'console.log("code is not documentation");\n',
      'requirements.txt': 'requests==2.0\n',
    });
    await createBareRepo(root, 'acme', 'legacy', { 'README.md': '# Legacy\n' }, 'master');
    server = await startGitHttpServer(root);
  });

  afterAll(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
    await rm(scratch, { recursive: true, force: true });
  });

  async function makeLoader(overrides: Partial<GithubLoaderOptions> = {}, gitDelaySeconds = 0) {
    const tempDir = await mkdtemp(join(scratch, 'tmp-'));
    const spy = await createGitSpy(tempDir, gitDelaySeconds);
    const loader = new GithubLoader({
      baseUrls: [server.baseUrl],
      guard: allowAll,
      tempDir,
      maxFileBytes: 2000,
      gitBinary: spy.binary,
      ...overrides,
    });
    /** What the loader left in its temp folder, apart from the spy. */
    const leftovers = async () => (await readdir(tempDir)).filter((name) => !name.startsWith('git-spy'));
    return { loader, spy, leftovers };
  }

  const load = (loader: GithubLoader, url: string) => collect(loader, { url });

  it('ingests the documentation files of main with links to their blobs', async () => {
    const { loader, leftovers } = await makeLoader();
    const { documents, skipped } = await load(loader, `${server.baseUrl}/acme/docs`);
    const blob = `${server.baseUrl}/acme/docs/blob/main`;
    expect(documents.map((d) => d.source)).toEqual([
      `${blob}/README.md`,
      `${blob}/docs/guide.md`,
      `${blob}/docs/intro.rst`,
      `${blob}/docs/manual.adoc`,
      `${blob}/docs/my%20notes.txt`,
      `${blob}/docs/nested/deeper/README`,
      `${blob}/docs/page.mdx`,
    ]);
    for (const doc of documents) expect(doc.link).toBe(doc.source);
    const byPath = new Map(documents.map((d) => [d.source.slice(blob.length + 1), d]));
    expect(byPath.get('README.md')).toMatchObject({ title: 'Acme', content: '# Acme\n\nWelcome to Acme.' });
    expect(byPath.get('docs/guide.md')?.content).toBe('# Guide\n\n## Install\n\nRun the installer.');
    expect(byPath.get('docs/nested/deeper/README')).toMatchObject({ title: 'README' });
    expect(byPath.get('docs/my%20notes.txt')).toMatchObject({
      title: 'my notes.txt',
      content: 'Plain text notes.',
    });
    expect(byPath.get('docs/intro.rst')?.content).toBe(
      '# Introduction\n\nSome *text*.\n\n## Usage\n\n```python\nprint("hi")\n```',
    );
    expect(byPath.get('docs/manual.adoc')).toMatchObject({
      title: 'Manual',
      content: '# Manual\n\n## Setup\n\n```bash\nmake install\n```',
    });
    expect(skipped).toEqual(
      expect.arrayContaining([
        { url: `${blob}/docs/logo.md`, code: 'NOT_HTML', reason: 'binary file' },
        {
          url: `${blob}/docs/huge.md`,
          code: 'TOO_LARGE',
          reason: expect.stringMatching(/^larger than 2000 bytes/),
        },
      ]),
    );
    expect(await leftovers()).toEqual([]);
  });

  it('strips front matter, imports, exports and JSX tags from MDX and keeps the text', async () => {
    const { loader } = await makeLoader();
    const { documents } = await load(loader, `${server.baseUrl}/acme/docs/tree/main/docs`);
    const page = documents.find((d) => d.source.endsWith('/docs/page.mdx'));
    expect(page?.title).toBe('Using widgets');
    expect(page?.content).toBe(
      '## Widgets\n\nWidgets spin fast on Linux. \n\n```jsx\n<Widget size="big" />\n```',
    );
  });

  it('limits the load to the folder of a /tree/main/<folder> URL', async () => {
    const { loader } = await makeLoader();
    const { documents } = await load(loader, `${server.baseUrl}/acme/docs/tree/main/docs/nested/`);
    expect(documents.map((d) => d.source)).toEqual([
      `${server.baseUrl}/acme/docs/blob/main/docs/nested/deeper/README`,
    ]);
  });

  it('accepts the .git form of the URL', async () => {
    const { loader } = await makeLoader();
    const { documents } = await load(loader, `${server.baseUrl}/acme/docs.git`);
    expect(documents[0]?.source).toBe(`${server.baseUrl}/acme/docs/blob/main/README.md`);
  });

  it('reports CLONING and then SCRAPING with the number of files', async () => {
    const { loader } = await makeLoader();
    const { progress } = await load(loader, `${server.baseUrl}/acme/docs/`);
    expect(progress[0]).toMatchObject({ step: 'CLONING', current: 0, total: 1 });
    expect(progress[1]).toMatchObject({ step: 'CLONING', current: 1, total: 1 });
    const scraping = progress.filter((p) => p.step === 'SCRAPING');
    expect(scraping[0]).toMatchObject({ current: 0, total: 9 });
    expect(scraping[scraping.length - 1]).toMatchObject({ current: 9, total: 9 });
  });

  it('fails when the repository has no main branch and removes its temporary folder', async () => {
    const { loader, leftovers } = await makeLoader();
    await expect(load(loader, `${server.baseUrl}/acme/legacy`)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'the repository has no main branch',
    });
    expect(await leftovers()).toEqual([]);
  });

  it('fails when the repository does not exist', async () => {
    const { loader } = await makeLoader();
    await expect(load(loader, `${server.baseUrl}/acme/missing`)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('fails when the folder of the URL does not exist on main', async () => {
    const { loader } = await makeLoader();
    await expect(load(loader, `${server.baseUrl}/acme/docs/tree/main/nope`)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'the folder nope does not exist on main',
    });
  });

  it('fails with TOO_LARGE when the clone exceeds the size cap', async () => {
    const { loader, leftovers } = await makeLoader({ maxRepoBytes: 1000 });
    await expect(load(loader, `${server.baseUrl}/acme/docs`)).rejects.toMatchObject({ code: 'TOO_LARGE' });
    expect(await leftovers()).toEqual([]);
  });

  it('kills git and fails with TIMEOUT when the clone takes too long', async () => {
    const { loader, leftovers } = await makeLoader({ cloneTimeoutMs: 1 });
    await expect(load(loader, `${server.baseUrl}/acme/docs`)).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(await leftovers()).toEqual([]);
  });

  it('kills git and removes its folder when the load is cancelled during the clone', async () => {
    const controller = new AbortController();
    const { loader, spy, leftovers } = await makeLoader({}, 30);
    const loading = collect(loader, { url: `${server.baseUrl}/acme/docs` }, controller.signal);
    // The spy logs its arguments before its 30 s sleep: once the log exists, git is running.
    const deadline = Date.now() + 20_000;
    while (!(await exists(spy.log))) {
      if (Date.now() > deadline) throw new Error('git never started');
      await new Promise((r) => setTimeout(r, 10));
    }
    controller.abort();
    await expect(loading).rejects.toMatchObject({ code: 'ABORTED' });
    expect(await leftovers()).toEqual([]);
  });

  it('refuses hostile URLs in validate() and in load() before git runs', async () => {
    const { loader, spy } = await makeLoader();
    const before = server.requests.length;
    const hostile = [
      'file:///etc',
      `file://${root}/acme/docs.git`,
      'ext::sh -c touch% /tmp/kbqa-pwned',
      '--upload-pack=touch /tmp/kbqa-pwned',
      `-u touch ${server.baseUrl}/acme/docs`,
      'ssh://git@github.com/acme/docs.git',
      'git@github.com:acme/docs.git',
      `${root}/acme/docs.git`,
      './acme/docs',
      'https://evil.example.com/acme/docs',
      'https://github.com/acme/docs',
      `${server.baseUrl.replace('http:', 'https:')}/acme/docs`,
      `${server.baseUrl}/acme/docs/tree/dev/docs`,
      `${server.baseUrl}/acme/docs/blob/main/README.md`,
      `${server.baseUrl}/acme`,
      `${server.baseUrl}/ac$me/docs`,
      `${server.baseUrl}/acme/-docs`,
      `${server.baseUrl}/acme/docs/tree/main/%2e%2e/x`,
      `${server.baseUrl.replace('http://', 'http://user:secret@')}/acme/docs`,
      `${server.baseUrl}/acme/docs --upload-pack=x`,
    ];
    for (const url of hostile) {
      expect(() => loader.validate({ url })).toThrow(KbqaError);
      try {
        loader.validate({ url });
      } catch (error) {
        expect(error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('accepted:') });
      }
      await expect(load(loader, url)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    }
    expect(await exists(spy.log)).toBe(false);
    expect(server.requests.length).toBe(before);
  });

  it('stops before cloning when the address guard refuses the host', async () => {
    const checked: string[] = [];
    const guard: AddressGuard = {
      resolve: (url) => {
        checked.push(url.href);
        return Promise.reject(new KbqaError('FETCH_REFUSED', 'loopback addresses are not allowed'));
      },
    };
    const { loader, spy } = await makeLoader({ guard });
    const before = server.requests.length;
    await expect(load(loader, `${server.baseUrl}/acme/docs`)).rejects.toMatchObject({
      code: 'FETCH_REFUSED',
    });
    expect(checked).toEqual([`${server.baseUrl}/acme/docs.git`]);
    expect(await exists(spy.log)).toBe(false);
    expect(server.requests.length).toBe(before);
  });

  it('makes git connect to the address the guard checked, not to a second DNS answer', async () => {
    // git.kbqa.invalid resolves nowhere (.invalid is reserved): the clone can only succeed if git
    // uses the guard's answer.
    const port = new URL(server.baseUrl).port;
    const base = `http://git.kbqa.invalid:${port}`;
    const checked: string[] = [];
    const guard: AddressGuard = {
      resolve: (url) => {
        checked.push(url.host);
        return Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
      },
    };
    const { loader } = await makeLoader({ guard, baseUrls: [base], gitBinary: 'git' });
    const { documents } = await load(loader, `${base}/acme/docs`);
    expect(checked).toEqual([`git.kbqa.invalid:${port}`]);
    expect(documents.map((d) => d.source)).toContain(`${base}/acme/docs/blob/main/README.md`);
  });

  it('pins IPv6 answers in brackets and leaves IP literals alone', () => {
    expect(
      pinnedResolve(new URL('https://git.example.com/a/b.git'), [
        { address: '2001:db8::1', family: 6 },
        { address: '93.184.216.34', family: 4 },
      ]),
    ).toBe('git.example.com:443:[2001:db8::1],93.184.216.34');
    expect(
      pinnedResolve(new URL('http://127.0.0.1:8080/a/b.git'), [{ address: '127.0.0.1', family: 4 }]),
    ).toBeUndefined();
  });

  it('runs git with a hardened command line', async () => {
    const { loader, spy } = await makeLoader();
    await collect(loader, { url: `${server.baseUrl}/acme/docs` });
    const { readFile } = await import('node:fs/promises');
    const invocation = (await readFile(spy.log, 'utf8')).trim();
    expect(invocation).toContain(
      '-c protocol.allow=never -c protocol.https.allow=always -c protocol.http.allow=always',
    );
    expect(invocation).toContain('-c http.followRedirects=false');
    expect(invocation).toContain(
      `clone --depth 1 --branch main --single-branch --no-tags --no-recurse-submodules --template= --quiet -- ${server.baseUrl}/acme/docs.git`,
    );
  });

  it('accepts only https://github.com by default', () => {
    const loader = new GithubLoader({ guard: allowAll });
    expect(() => loader.validate({ url: 'https://github.com/fastify/fastify' })).not.toThrow();
    expect(() =>
      loader.validate({ url: 'https://github.com/fastify/fastify/tree/main/docs/Guides' }),
    ).not.toThrow();
    expect(() => loader.validate({ url: 'http://github.com/fastify/fastify' })).toThrow(KbqaError);
    expect(() => loader.validate({ url: 'https://gitlab.com/fastify/fastify' })).toThrow(KbqaError);
  });

  describeLoaderContract('GithubLoader', {
    setup: async () => {
      const { loader } = await makeLoader();
      const request = { url: `${server.baseUrl}/acme/docs` };
      // The repository holds a binary and a file over maxFileBytes: both are skipped.
      return { loader, request, skipping: request, teardown: () => Promise.resolve() };
    },
    invalidRequest: { url: 'file:///etc/passwd' },
  });
});
