import { calloutTitle } from '@kbqa/text';

/**
 * Callout boxes of documentation generators ("Warning: do not ..."), rewritten in the DOM before
 * the page becomes markdown: the icon and a title that only names the box's kind go, a title of
 * the author's own becomes a paragraph of its own, the box's text stays where it was.
 */

/**
 * Class names of callout boxes: Docusaurus (`theme-admonition`, and `admonition` before v2.2),
 * MkDocs, Material and Sphinx (`admonition`), VitePress (`custom-block`), GitHub
 * (`markdown-alert`), GitBook (`hint`).
 */
const BOX_CLASSES: ReadonlySet<string> = new Set([
  'theme-admonition',
  'admonition',
  'custom-block',
  'markdown-alert',
  'hint',
]);
/** Kind classes that make a callout of a `<blockquote>` (NestJS's docs) or a `<details>` (MkDocs). */
const KIND_CLASSES: ReadonlySet<string> = new Set([
  'note',
  'info',
  'tip',
  'hint',
  'warning',
  'caution',
  'danger',
  'important',
  'error',
  'success',
  'question',
  'example',
  'abstract',
  'failure',
  'bug',
  'attention',
  'seealso',
]);
/** Title elements of the boxes above, exact names. */
const TITLE_CLASSES: ReadonlySet<string> = new Set([
  'admonition-title',
  'admonition-heading',
  'custom-block-title',
  'markdown-alert-title',
  'hint-title',
]);
/** Docusaurus's CSS modules hash class names: `admonitionHeading_Gvgb`. */
const TITLE_CLASS_PREFIX = /^admonition(?:Heading|-heading)/;
/** `admonitionIcon_Rf37`, `admonition-icon`, `hint-icon`, `octicon`: the box's pictogram. */
const ICON_CLASS = /icon/i;

/** Whether `el` (tag upper-cased, `classes` its class names) is a callout box. */
export function isCalloutBox(el: Element, tag: string, classes: readonly string[]): boolean {
  if (classes.some((name) => BOX_CLASSES.has(name))) return true;
  if (el.hasAttribute('data-hint') || el.hasAttribute('data-hint-style')) return true;
  if (tag === 'BLOCKQUOTE' || tag === 'DETAILS') return classes.some((name) => KIND_CLASSES.has(name));
  return false;
}

/** Rewrites the callout boxes found by {@link isCalloutBox}, in document order. */
export function flattenCallouts(boxes: readonly Element[]): void {
  for (const box of boxes) {
    removeIcons(box);
    const title = titleOf(box);
    if (title) {
      removeIcons(title);
      replaceTitle(title, calloutTitle(title.textContent ?? ''));
    } else if (box.tagName.toUpperCase() === 'BLOCKQUOTE') {
      const label = leadingLabel(box);
      if (label) replaceLabel(label, calloutTitle(label.textContent ?? ''));
    }
  }
}

function classesOf(el: Element): string[] {
  return (el.getAttribute('class') ?? '').split(/\s+/).filter(Boolean);
}

function removeIcons(parent: Element): void {
  const icons: Element[] = [];
  for (let child = parent.firstElementChild; child; child = child.nextElementSibling) {
    if (classesOf(child).some((name) => ICON_CLASS.test(name))) icons.push(child);
  }
  for (const icon of icons) icon.remove();
}

function titleOf(box: Element): Element | undefined {
  for (let child = box.firstElementChild; child; child = child.nextElementSibling) {
    if (child.tagName.toUpperCase() === 'SUMMARY') return child;
    const classes = classesOf(child);
    if (classes.some((name) => TITLE_CLASSES.has(name) || TITLE_CLASS_PREFIX.test(name))) return child;
  }
  return undefined;
}

/**
 * A kind-only title goes; any other becomes a plain paragraph (a `<summary>` already is one),
 * never a heading: an `<h5>` inside Docusaurus's old heading would enter the heading path.
 */
function replaceTitle(title: Element, kept: string): void {
  if (!kept) {
    title.remove();
    return;
  }
  if (title.tagName.toUpperCase() === 'SUMMARY') return;
  const paragraph = title.ownerDocument.createElement('p');
  paragraph.textContent = kept;
  title.replaceWith(paragraph);
}

/** The `<strong>` a NestJS callout opens with, in the box or in its first paragraph. */
function leadingLabel(box: Element): Element | undefined {
  let parent: Element = box;
  for (let depth = 0; depth < 3; depth++) {
    let node = parent.firstChild;
    while (node && (node.nodeType === 8 || (node.nodeType === 3 && !(node.nodeValue ?? '').trim()))) {
      node = node.nextSibling;
    }
    if (!node || node.nodeType !== 1) return undefined;
    const el = node as Element;
    const tag = el.tagName.toUpperCase();
    if (tag === 'STRONG' || tag === 'B') return el;
    if (tag !== 'P' && tag !== 'DIV') return undefined;
    parent = el;
  }
  return undefined;
}

/** Drops the label and the colon after it; a label of the author's own goes before as a paragraph. */
function replaceLabel(label: Element, kept: string): void {
  const next = label.nextSibling;
  if (next?.nodeType === 3) next.nodeValue = (next.nodeValue ?? '').replace(/^\s*:?\s*/, '');
  const parent = label.parentElement;
  if (kept && parent) {
    const paragraph = label.ownerDocument.createElement('p');
    paragraph.textContent = kept;
    const inBox = parent.tagName.toUpperCase() === 'BLOCKQUOTE';
    if (inBox) parent.insertBefore(paragraph, label);
    else parent.before(paragraph);
  }
  label.remove();
}
