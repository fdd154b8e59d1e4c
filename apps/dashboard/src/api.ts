/** Calls of the dashboard: /admin/v1 through the session cookie, with the CSRF token on changes. */

let csrfToken = '';
let onLoggedOut: () => void = () => undefined;

export function setSession(csrf: string, loggedOut: () => void): void {
  csrfToken = csrf;
  onLoggedOut = loggedOut;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

async function failure(res: Response): Promise<ApiError> {
  let body: { error?: string; code?: string } = {};
  try {
    body = (await res.json()) as typeof body;
  } catch {
    // not JSON: the status text says enough
  }
  return new ApiError(body.error ?? `${res.status} ${res.statusText}`, res.status, body.code);
}

/** A request with the session; a 401 means the session ended, and the page goes back to the login. */
export async function request(method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = {};
  // A FormData body (an upload) sets its own multipart content type with the boundary.
  const form = body instanceof FormData;
  if (body !== undefined && !form) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : form ? body : JSON.stringify(body),
    credentials: 'same-origin',
  });
  if (res.status === 401) onLoggedOut();
  if (!res.ok) throw await failure(res);
  return res;
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await request(method, path, body);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

export const get = <T>(path: string) => api<T>('GET', `/admin/v1/${path}`);
export const post = <T>(path: string, body: unknown = {}) => api<T>('POST', `/admin/v1/${path}`, body);
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', `/admin/v1/${path}`, body);
export const put = <T>(path: string, body: unknown) => api<T>('PUT', `/admin/v1/${path}`, body);
export const del = <T>(path: string) => api<T>('DELETE', `/admin/v1/${path}`);

export interface SessionInfo {
  logged_in: boolean;
  csrf_token?: string;
  expires_at?: string;
}

/** The session of this browser; never a 401 (a console error on every visit to the login page). */
export async function readSession(): Promise<SessionInfo> {
  const res = await fetch('/dashboard/api/session', { credentials: 'same-origin' });
  return (await res.json()) as SessionInfo;
}

export async function login(token: string): Promise<SessionInfo> {
  const res = await fetch('/dashboard/api/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
    credentials: 'same-origin',
  });
  if (!res.ok) throw await failure(res);
  return { logged_in: true, ...((await res.json()) as { csrf_token: string; expires_at: string }) };
}

export async function logout(): Promise<void> {
  await request('POST', '/dashboard/api/logout');
}

/** A source of a streamed answer; `title` only when the page has one other than its address. */
export interface StreamedSource {
  id: string;
  link: string;
  content: string;
  title?: string;
}

/** Events of a streamed answer (SPEC.md): sources first, then text pieces, then the message id. */
export type ChatEvent =
  | { kind: 'sources'; sources: StreamedSource[] }
  | { kind: 'text'; text: string }
  | { kind: 'message'; id: number }
  | { kind: 'error'; message: string };

/** Reads a Server-Sent Events answer as it arrives. */
export async function* readChatStream(res: Response): AsyncGenerator<ChatEvent> {
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (!data) continue;
      const parsed = JSON.parse(data) as { chunk: string; metadata?: unknown };
      if (parsed.chunk === '<|source|>') {
        yield {
          kind: 'sources',
          sources: (parsed.metadata ?? []) as StreamedSource[],
        };
      } else if (parsed.chunk === '<|message_id|>') {
        yield { kind: 'message', id: Number(parsed.metadata) };
      } else if (parsed.chunk === '<|error|>') {
        yield {
          kind: 'error',
          message: (parsed.metadata as { error?: string } | undefined)?.error ?? 'the answer failed',
        };
      } else if (!parsed.chunk.startsWith('<|')) {
        yield { kind: 'text', text: parsed.chunk };
      }
    }
  }
}
