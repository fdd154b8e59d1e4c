import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { ProjectsService } from '../projects/projects.service';
import { registerWidgetPreflight } from './widget-cors';

export const WIDGET_PATH = '/widget.js';

/** Short enough for browsers to revalidate soon after an upgrade, long enough to spare the server. */
const CACHE_CONTROL = 'public, max-age=300';

/** The built widget (packages/widget) and its ETag, read once: the file never changes while we run. */
function loadWidget(): { body: Buffer; etag: string } {
  let file: string;
  try {
    file = require.resolve('@kbqa/widget/dist/widget.js');
  } catch {
    throw new Error('@kbqa/widget is not built (packages/widget/dist/widget.js is missing): run pnpm build');
  }
  const body = readFileSync(file);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, etag };
}

/** Whether an If-None-Match header names this ETag (a list, weak forms and `*` included). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === etag || tag === '*');
}

/**
 * The widget's routes, as plain Fastify routes (no key, so outside the app-wide ApiKeyGuard):
 * `GET /widget.js`, and the CORS preflights of the anon-key endpoints it calls.
 */
export function registerWidgetRoutes(instance: FastifyInstance, projects: ProjectsService): void {
  const widget = loadWidget();
  instance.get(WIDGET_PATH, (req, reply) => {
    void reply.header('Cache-Control', CACHE_CONTROL).header('ETag', widget.etag);
    if (matches(req.headers['if-none-match'], widget.etag)) {
      void reply.code(304).send();
      return;
    }
    void reply.type('application/javascript; charset=utf-8').send(widget.body);
  });
  registerWidgetPreflight(instance, projects);
}
