import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { ProjectsService } from '../projects/projects.service';
import { registerWidgetPreflight } from './widget-cors';

export const WIDGET_PATH = '/widget.js';
/** The Markdown renderer that widget.js imports as a module when the panel first opens. */
export const WIDGET_MARKDOWN_PATH = '/widget-markdown.js';

/** Short enough for browsers to revalidate soon after an upgrade, long enough to spare the server. */
const CACHE_CONTROL = 'public, max-age=300';

/** A built file of the widget (packages/widget) and its ETag, read once: it never changes while we run. */
function loadWidget(name: string): { body: Buffer; etag: string } {
  let file: string;
  try {
    file = require.resolve(`@kbqa/widget/dist/${name}`);
  } catch {
    throw new Error(`@kbqa/widget is not built (packages/widget/dist/${name} is missing): run pnpm build`);
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
 * `GET /widget.js` and the module it imports, and the CORS preflights of the anon-key endpoints it calls.
 */
export function registerWidgetRoutes(instance: FastifyInstance, projects: ProjectsService): void {
  for (const [path, name] of [
    [WIDGET_PATH, 'widget.js'],
    [WIDGET_MARKDOWN_PATH, 'widget-markdown.js'],
  ] as const) {
    const file = loadWidget(name);
    instance.get(path, (req, reply) => {
      void reply.header('Cache-Control', CACHE_CONTROL).header('ETag', file.etag);
      // Module scripts are fetched with CORS: docs sites on any origin import the Markdown module.
      // It is public code and is fetched without credentials, so `*` exposes nothing.
      if (path === WIDGET_MARKDOWN_PATH) void reply.header('Access-Control-Allow-Origin', '*');
      if (matches(req.headers['if-none-match'], file.etag)) {
        void reply.code(304).send();
        return;
      }
      void reply.type('application/javascript; charset=utf-8').send(file.body);
    });
  }
  registerWidgetPreflight(instance, projects);
}
