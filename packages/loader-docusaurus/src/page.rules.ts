import type { FetchResponse } from '@kbqa/core';

export const HTML_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1';
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/** Why a response is not a page to extract, or undefined when it is one. */
export function pageFailure(res: FetchResponse): string | undefined {
  if (res.status < 200 || res.status >= 300) return `HTTP ${res.status}`;
  if (HTML_TYPES.has(res.contentType)) return undefined;
  if (res.contentType === '') {
    const head = res.body.subarray(0, 512).toString('latin1').trimStart().toLowerCase();
    if (head.startsWith('<!doctype html') || head.startsWith('<html')) return undefined;
  }
  return `not an HTML page (${res.contentType || 'no content type'})`;
}

/** Decodes an HTML body with the charset of its Content-Type or `<meta>`, UTF-8 otherwise. */
export function decodeHtml(res: FetchResponse): string {
  const fromHeader = /charset\s*=\s*"?([\w.:-]+)/i.exec(res.headers['content-type'] ?? '')?.[1];
  const fromMeta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(
    res.body.subarray(0, 2048).toString('latin1'),
  )?.[1];
  for (const label of [fromHeader, fromMeta, 'utf-8']) {
    if (!label) continue;
    try {
      return new TextDecoder(label).decode(res.body);
    } catch {
      // Unknown label: try the next source of truth.
    }
  }
  return res.body.toString('utf8');
}
