import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { type CitableSource, citedMarkdown, type CitedPage } from '@kbqa/text/citations';
import { fragmentHref } from '@kbqa/text/text-fragment';

// Links in answers (citations among them) open in a new tab: the dashboard stays where it was,
// and the opened page gets no handle on it.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

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

/**
 * An answer as sanitized HTML with its citations renumbered by page, each a link to its page (at the
 * cited passage when `textFragments` and the source's content has it), and the pages under those numbers.
 */
export function citedAnswerHtml(
  answer: string,
  sources: CitableSource[],
  textFragments: boolean,
): { html: string; pages: CitedPage[] } {
  const cited = citedMarkdown(answer, sources, {
    href: textFragments
      ? (c, address) => fragmentHref(address, c.passage, sources[c.source - 1]?.content)
      : undefined,
  });
  return { html: markdownHtml(cited.text), pages: cited.pages };
}

/** The words of an answer as a screen reader should say them: no Markdown marks, no HTML. */
export function spokenText(markdown: string): string {
  // A parsed document neither runs scripts nor loads images.
  const doc = new DOMParser().parseFromString(markdownHtml(markdown), 'text/html');
  return (doc.body.textContent ?? '').replace(/\s+/g, ' ').trim();
}

export function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/** Today, or `days` before it, as a UTC calendar day (YYYY-MM-DD), as the API's filters take it. */
export function utcDay(daysBefore = 0): string {
  return new Date(Date.now() - daysBefore * 86_400_000).toISOString().slice(0, 10);
}
