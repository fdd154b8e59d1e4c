import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { ProjectsService } from '../projects/projects.service';

/**
 * The endpoints an anon key may call, under both version prefixes: the only ones a browser page
 * on another origin (the widget) may reach. Every other endpoint sends no CORS header at all, so
 * a browser refuses cross-origin calls to it.
 */
export const ANON_KEY_PATHS: readonly string[] = ['v1', 'v0'].flatMap((version) =>
  ['newConversation', 'endConversation', 'serviceChat', 'mendableChat', 'rateMessage'].map(
    (name) => `/${version}/${name}`,
  ),
);

/** How long a browser may reuse an answered preflight (seconds). */
const PREFLIGHT_MAX_AGE = '600';

/**
 * The `Origin` of a cross-origin browser request, or undefined for requests without one
 * (servers, curl) and same-origin ones (`Origin` equal to http(s)://<Host>), which the origin
 * rule leaves alone.
 */
export function crossOrigin(headers: IncomingHttpHeaders): string | undefined {
  const origin = headers.origin;
  if (typeof origin !== 'string' || origin === '') return undefined;
  const host = headers.host;
  if (host && (origin === `http://${host}` || origin === `https://${host}`)) return undefined;
  return origin;
}

/**
 * Lets the browser hand the answer to the page of `origin`. On the raw response, so a streamed
 * (SSE) answer, written after Fastify lets go of the reply, carries it too.
 */
export function allowOrigin(raw: ServerResponse, origin: string): void {
  raw.setHeader('Access-Control-Allow-Origin', origin);
  raw.setHeader('Vary', 'Origin');
}

/**
 * CORS preflights (`OPTIONS`) of the anon-key endpoints. A preflight carries no body and so no
 * key: it is answered for an origin that any project lists (or when one allows `*`); the POST
 * that follows is checked against the key's own project by ApiKeyGuard. Any other origin gets a
 * 403 without CORS headers, and the browser never sends the request.
 */
export function registerWidgetPreflight(instance: FastifyInstance, projects: ProjectsService): void {
  for (const path of ANON_KEY_PATHS) {
    instance.options(path, async (req, reply) => {
      const origin = req.headers.origin;
      if (typeof origin === 'string' && origin !== '' && (await projects.originListedByAnyProject(origin))) {
        return reply
          .code(204)
          .header('Access-Control-Allow-Origin', origin)
          .header('Access-Control-Allow-Methods', 'POST')
          .header('Access-Control-Allow-Headers', 'content-type')
          .header('Access-Control-Max-Age', PREFLIGHT_MAX_AGE)
          .header('Vary', 'Origin')
          .send();
      }
      return reply
        .code(403)
        .type('application/json; charset=utf-8')
        .send(
          JSON.stringify({
            error:
              'this origin is not allowed to call the API; the operator lists allowed origins per project',
            code: 'ORIGIN_NOT_ALLOWED',
          }),
        );
    });
  }
}
