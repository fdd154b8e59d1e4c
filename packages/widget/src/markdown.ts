/**
 * The widget's Markdown renderer, a module of its own (dist/widget-markdown.js): marked and
 * DOMPurify are five sixths of the widget's bytes, so the script tag loads only the launcher and
 * panel, and this is fetched when a reader first opens the panel (docs/benchmarks.md, "Widget size").
 */
import DOMPurify from 'dompurify';
import { marked } from 'marked';

// Citation links at the cited passage are a part of reading an answer, loaded with it.
export { fragmentHref } from '@kbqa/text/text-fragment';

// Links in answers open in a new tab and give the opened page no handle on this one.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/** Renders an answer's Markdown into `target`, sanitized. */
export function renderMarkdown(target: HTMLElement, text: string): void {
  const html = marked.parse(text, { async: false, gfm: true, breaks: false });
  target.innerHTML = DOMPurify.sanitize(html, { FORBID_TAGS: ['style', 'form', 'input', 'img'] });
}
