import { afterEach, describe, expect, it } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { KbqaError } from '@kbqa/core';
import { collect, describeLoaderContract } from '@kbqa/core/testing';
import { SafeFetcher } from '@kbqa/fetcher';
import { UrlLoader } from './url.loader';
import { startServer, type TestServer } from '@kbqa/core/testing';

const ARTICLE = `<!doctype html><html lang="en"><head><title>Install guide</title>
<link rel="canonical" href="/docs/install"></head>
<body><nav>Home | Docs</nav><main><h1>Install guide</h1>
<p>Run the installer and follow the prompts. It takes about two minutes on a typical laptop.</p>
<h2>Requirements</h2><ul><li>Node 20</li><li>2 GB of disk</li></ul></main></body></html>`;

const JS_ONLY = `<!doctype html><html><head><title>App</title><script src="/main.js"></script></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>`;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const pages: Record<string, Handler> = {
  '/robots.txt': (_req, res) => res.end('User-agent: *\nDisallow: /private\n'),
  '/docs/install': (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE),
  '/app': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(JS_ONLY),
  '/file.pdf': (_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4'),
  '/latin1': (_req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' })
      .end(
        Buffer.from(
          '<html><body><main><h1>Caf\xe9</h1><p>Cr\xe8me br\xfbl\xe9e recipe, step by step.</p></main></body></html>',
          'latin1',
        ),
      ),
  '/empty': (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body></body></html>'),
  '/private/page': (_req, res) => res.end(ARTICLE),
};

async function setup(): Promise<{ server: TestServer; fetcher: SafeFetcher; loader: UrlLoader }> {
  const server = await startServer((req, res) => {
    const handler = pages[(req.url ?? '').split('?')[0] ?? ''];
    if (handler) handler(req, res);
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>not found</h1>');
  });
  const fetcher = new SafeFetcher({ allowPrivateHosts: [server.hostPort], retries: 0 });
  return { server, fetcher, loader: new UrlLoader({ fetcher }) };
}

describeLoaderContract(UrlLoader.name, {
  async setup() {
    const { server, fetcher, loader } = await setup();
    return {
      loader,
      request: { url: `${server.origin}/docs/install` },
      teardown: async () => {
        fetcher.close();
        await server.close();
      },
    };
  },
  invalidRequest: { url: 'ftp://example.com/file' },
});

describe(UrlLoader.name, () => {
  let env: Awaited<ReturnType<typeof setup>> | undefined;
  afterEach(async () => {
    env?.fetcher.close();
    await env?.server.close();
    env = undefined;
  });

  async function failure(url: string): Promise<KbqaError> {
    env = await setup();
    try {
      await collect(env.loader, { url: `${env.server.origin}${url}` });
    } catch (error) {
      if (error instanceof KbqaError) return error;
      throw error;
    }
    throw new Error('expected the load to fail');
  }

  it('yields the page as markdown with its title, known by its canonical URL as source and link', async () => {
    env = await setup();
    const url = `${env.server.origin}/docs/install?ref=home`;
    const { documents, progress } = await collect(env.loader, { url });
    expect(documents).toHaveLength(1);
    const [doc] = documents;
    expect(doc?.source).toBe(`${env.server.origin}/docs/install`);
    expect(doc?.title).toBe('Install guide');
    expect(doc?.link).toBe(`${env.server.origin}/docs/install`);
    expect(doc?.content).toContain('## Requirements');
    expect(doc?.content).not.toContain('Home | Docs');
    expect(progress.at(-1)).toMatchObject({ step: 'SCRAPING', current: 1, total: 1 });
  });

  it('decodes the charset the server declares', async () => {
    env = await setup();
    const { documents } = await collect(env.loader, { url: `${env.server.origin}/latin1` });
    expect(documents[0]?.content).toContain('Crème brûlée');
  });

  it('fails a JavaScript-only page with NO_CONTENT', async () => {
    const error = await failure('/app');
    expect(error.code).toBe('NO_CONTENT');
    expect(error.message).toContain('no extractable content; the page may need JavaScript');
  });

  it('fails an empty page with NO_CONTENT', async () => {
    expect((await failure('/empty')).code).toBe('NO_CONTENT');
  });

  it('refuses a non-HTML response with a clear error', async () => {
    const error = await failure('/file.pdf');
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toContain('application/pdf');
  });

  it('fails a 404 with FETCH_FAILED naming the status', async () => {
    const error = await failure('/missing');
    expect(error.code).toBe('FETCH_FAILED');
    expect(error.message).toContain('HTTP 404');
  });

  it('obeys robots.txt through the fetcher', async () => {
    const error = await failure('/private/page');
    expect(error.code).toBe('FETCH_REFUSED');
    expect(error.message).toContain('robots.txt');
  });

  it('refuses a private address that is not allowlisted', async () => {
    env = await setup();
    const loader = new UrlLoader({ fetcher: env.fetcher });
    await expect(collect(loader, { url: 'http://10.0.0.1/' })).rejects.toMatchObject({
      code: 'FETCH_REFUSED',
    });
  });

  it.each([
    'ftp://example.com/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'not a url',
    'https://u:p@example.com/',
  ])('refuses %s in validate() with BAD_REQUEST', (url) => {
    const loader = new UrlLoader({ fetcher: new SafeFetcher() });
    let thrown: unknown;
    try {
      loader.validate({ url });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(KbqaError);
    expect((thrown as KbqaError).code).toBe('BAD_REQUEST');
  });

  it('accepts http and https URLs in validate()', () => {
    const loader = new UrlLoader({ fetcher: new SafeFetcher() });
    expect(() => loader.validate({ url: 'https://docs.example.com/a' })).not.toThrow();
  });
});
