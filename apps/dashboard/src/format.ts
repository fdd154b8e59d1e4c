import DOMPurify from 'dompurify';
import { marked } from 'marked';

/** A stored ISO time as the reader's local date and time; a dash for none. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** Markdown of an answer as sanitized HTML (answers quote documentation, which may hold HTML). */
export function markdownHtml(markdown: string): string {
  return DOMPurify.sanitize(marked.parse(markdown, { async: false }));
}

export function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/** Today, or `days` before it, as a UTC calendar day (YYYY-MM-DD), as the API's filters take it. */
export function utcDay(daysBefore = 0): string {
  return new Date(Date.now() - daysBefore * 86_400_000).toISOString().slice(0, 10);
}
