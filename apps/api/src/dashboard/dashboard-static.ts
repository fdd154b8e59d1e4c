import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import type { Logger } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
};

/**
 * Scripts, styles and connections only from the service itself; no framing (clickjacking), no
 * plugins, no referrer leaking dashboard URLs.
 */
const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/** The built dashboard (apps/dashboard/dist), or undefined when it was not built. */
function readAssets(): Map<string, Asset> | undefined {
  const dist = join(dirname(require.resolve('@kbqa/dashboard/package.json')), 'dist');
  if (!existsSync(join(dist, 'index.html'))) return undefined;
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dist)) {
    const body = readFileSync(join(dist, name));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    assets.set(name, { body, type: TYPES[extname(name)] ?? 'application/octet-stream', etag });
  }
  return assets;
}

/**
 * Serves the dashboard's single-page app under /dashboard: its files by name, and index.html for
 * every other path below it (the app routes on the client). The page holds no data of its own:
 * without a session it shows the login form, and every call it makes goes through the session
 * check of /admin/v1 or /dashboard/api.
 */
export function registerDashboardPages(instance: FastifyInstance, logger: Logger): void {
  const assets = readAssets();
  if (!assets) {
    logger.warn('the dashboard is not built (apps/dashboard/dist); `pnpm build` builds it');
  }
  const send = (name: string, ifNoneMatch: string | undefined, reply: import('fastify').FastifyReply) => {
    const asset = assets?.get(name);
    if (!asset) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The dashboard is not built. Run `pnpm build` (pnpm start does it).');
    }
    void reply.headers(SECURITY_HEADERS);
    // index.html is small and names the app's files, so it is always checked again.
    void reply.header('cache-control', name === 'index.html' ? 'no-cache' : 'public, max-age=300');
    void reply.header('etag', asset.etag);
    if (ifNoneMatch === asset.etag) return reply.code(304).send();
    return reply.type(asset.type).send(asset.body);
  };
  instance.get('/dashboard', (_req, reply) => reply.redirect('/dashboard/', 302));
  instance.get('/dashboard/*', (req, reply) => {
    const rest = (req.params as { '*': string })['*'];
    const name = assets?.has(rest) && rest !== '' ? rest : 'index.html';
    return send(name, req.headers['if-none-match'], reply);
  });
}
