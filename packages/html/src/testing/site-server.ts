import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A body with its content type, for files that are not HTML pages. */
export interface SiteFile {
  type: string;
  body: string | Buffer;
}

export interface SiteServerOptions {
  /** path → HTML, as `renderDocsSite` returns it. */
  pages?: Map<string, string>;
  /** path → non-HTML body (robots.txt, sitemap.xml, PDFs...). */
  files?: Map<string, SiteFile>;
  /** Tried first; returns true when it answered the request. */
  handle?: (req: IncomingMessage, res: ServerResponse, path: string) => boolean;
}

export interface SiteServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `127.0.0.1:<port>`, for a fetcher's private-host allowlist. */
  host: string;
  /** Request paths (with query) in arrival order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Serves a rendered site on 127.0.0.1 for crawler tests and benchmarks. Page lookup ignores the
 * query and a trailing slash; unknown paths are 404 pages.
 */
export async function startSiteServer(options: SiteServerOptions): Promise<SiteServer> {
  const pages = options.pages ?? new Map<string, string>();
  const files = options.files ?? new Map<string, SiteFile>();
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const raw = req.url ?? '/';
    requests.push(raw);
    let path = raw.split('?')[0] ?? '/';
    try {
      path = decodeURI(path);
    } catch {
      // Malformed escapes are looked up as sent.
    }
    if (options.handle?.(req, res, path)) return;
    const file = files.get(path);
    if (file) {
      res.writeHead(200, { 'content-type': file.type });
      res.end(file.body);
      return;
    }
    const html = pages.get(path) ?? pages.get(path.replace(/\/+$/, '') || '/') ?? pages.get(`${path}/`);
    if (html === undefined) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><body><h1>Not found</h1></body></html>');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
