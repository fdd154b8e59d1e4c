/** How links in the content become markdown. */
export type LinkStyle = 'text' | 'inline';

/** A code block read from the page before Readability could touch it. */
export interface CodeBlock {
  lang: string;
  code: string;
}

/** Attribute that ties a `<pre>` to its {@link CodeBlock} across Readability's rewrites. */
export const CODE_ATTR = 'data-kbqa-code';
/** Attribute that keeps a heading's level (Readability turns `h1` into `h2`). */
export const LEVEL_ATTR = 'data-kbqa-level';

const SKIP = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'SVG',
  'IFRAME',
  'OBJECT',
  'BUTTON',
  'INPUT',
  'SELECT',
  'TEXTAREA',
  'IMG',
  'PICTURE',
  'VIDEO',
  'AUDIO',
  'CANVAS',
  'HEAD',
]);

const BLOCKS = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'BODY',
  'CENTER',
  'DD',
  'DETAILS',
  'DIALOG',
  'DIV',
  'DL',
  'DT',
  'FIELDSET',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HGROUP',
  'HR',
  'HTML',
  'LI',
  'MAIN',
  'NAV',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'SUMMARY',
  'TABLE',
  'UL',
]);

interface Context {
  code: CodeBlock[];
  base: string;
  links: LinkStyle;
  skip: ((el: Element) => boolean) | undefined;
}

/**
 * Converts a DOM subtree to markdown in one walk: ATX headings (levels kept), nested lists,
 * GitHub tables (first row is the header), fenced code with its language, inline code,
 * emphasis, and links as text or `[text](absolute-url)`. Images and form controls are dropped.
 * Text is not escaped beyond what would otherwise start a heading, list or quote. Elements
 * `skip` accepts are left out with everything inside them.
 */
export function toMarkdown(
  root: Node,
  code: CodeBlock[],
  base: string,
  links: LinkStyle,
  skip?: (el: Element) => boolean,
): string {
  const blocks = renderBlocks(root, { code, base, links, skip });
  return blocks
    .join('\n\n')
    .replace(/\u200b/g, '')
    .trim();
}

/** Reads a `<pre>`'s text with `<br>` as line breaks (Docusaurus and Prism emit those). */
export function codeText(pre: Element): string {
  let out = '';
  const walk = (node: Node): void => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) out += child.nodeValue ?? '';
      else if (child.nodeType === 1) {
        if ((child as Element).tagName.toUpperCase() === 'BR') out += '\n';
        else walk(child);
      }
    }
  };
  walk(pre);
  return out.replace(/\n+$/, '').replace(/^\n/, '');
}

const LANG_CLASS = /(?:^|\s)(?:language|lang|highlight-source)-([\w#+.-]+)/;

/** Language named by `class="language-xxx"` on the code, the pre or a wrapper around it. */
export function codeLanguage(pre: Element): string {
  const candidates: (Element | null | undefined)[] = [
    pre.getElementsByTagName('code')[0],
    pre,
    pre.parentElement,
    pre.parentElement?.parentElement,
    pre.parentElement?.parentElement?.parentElement,
  ];
  for (const el of candidates) {
    const match = LANG_CLASS.exec(el?.getAttribute('class') ?? '');
    if (match?.[1]) return match[1].toLowerCase();
  }
  return pre.getAttribute('data-language')?.toLowerCase() ?? '';
}

function tagOf(node: Node): string {
  return node.nodeName.toUpperCase();
}

function renderBlocks(parent: Node, ctx: Context): string[] {
  const blocks: string[] = [];
  let inline = '';
  const flush = (): void => {
    const text = inline
      .replace(/ *\n */g, '\n')
      .replace(/ {2,}/g, ' ')
      .trim();
    if (text) blocks.push(escapeLineStart(text));
    inline = '';
  };
  for (let child = parent.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 3) {
      inline += collapse(child.nodeValue ?? '');
      continue;
    }
    if (child.nodeType !== 1) continue;
    const tag = tagOf(child);
    if (SKIP.has(tag) || ctx.skip?.(child as Element)) continue;
    if (!BLOCKS.has(tag)) {
      inline += renderInline(child as Element, ctx);
      continue;
    }
    flush();
    const block = renderBlock(child as Element, tag, ctx);
    for (const b of block) if (b) blocks.push(b);
  }
  flush();
  return blocks;
}

function renderBlock(el: Element, tag: string, ctx: Context): string[] {
  switch (tag) {
    case 'H1':
    case 'H2':
    case 'H3':
    case 'H4':
    case 'H5':
    case 'H6': {
      const level = Number(el.getAttribute(LEVEL_ATTR)) || Number(tag.charAt(1));
      const text = inlineText(el, ctx).replace(/\s+/g, ' ').trim();
      return text ? [`${'#'.repeat(level)} ${text}`] : [];
    }
    case 'PRE':
      return [fencedCode(el, ctx)];
    case 'UL':
    case 'OL':
      return [renderList(el, tag === 'OL', ctx)];
    case 'TABLE':
      return [renderTable(el, ctx)];
    case 'BLOCKQUOTE': {
      const inner = renderBlocks(el, ctx).join('\n\n');
      return inner ? [inner.replace(/^/gm, '> ').replace(/^> $/gm, '>')] : [];
    }
    case 'HR':
      return ['---'];
    default:
      return renderBlocks(el, ctx);
  }
}

function fencedCode(pre: Element, ctx: Context): string {
  const index = pre.getAttribute(CODE_ATTR);
  const stored = index === null ? undefined : ctx.code[Number(index)];
  const block = stored ?? { lang: codeLanguage(pre), code: codeText(pre) };
  const longest = Math.max(2, ...(block.code.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${block.lang}\n${block.code}\n${fence}`;
}

function renderList(list: Element, ordered: boolean, ctx: Context): string {
  const items: string[] = [];
  let n = ordered ? Number(list.getAttribute('start')) || 1 : 0;
  for (let child = list.firstElementChild; child; child = child.nextElementSibling) {
    const tag = tagOf(child);
    if (tag === 'UL' || tag === 'OL') {
      // A list nested directly in a list (invalid, common) belongs to the previous item.
      const nested = renderList(child, tag === 'OL', ctx);
      const last = items.pop();
      items.push(last === undefined ? nested : `${last}\n${indent(nested, 2)}`);
      continue;
    }
    if (tag !== 'LI') continue;
    const marker = ordered ? `${n++}. ` : '- ';
    const blocks = renderBlocks(child, ctx);
    if (blocks.length === 0) continue;
    let item = '';
    blocks.forEach((block, i) => {
      const body = indent(block, marker.length);
      if (i === 0) item = marker + body.slice(marker.length);
      else item += (/^\s*(- |\d+\. )/.test(body) ? '\n' : '\n\n') + body;
    });
    items.push(item);
  }
  return items.join('\n');
}

function indent(text: string, width: number): string {
  const pad = ' '.repeat(width);
  return text.replace(/^(?=.)/gm, pad);
}

function renderTable(table: Element, ctx: Context): string {
  const rows: string[][] = [];
  for (const tr of Array.from(table.getElementsByTagName('tr'))) {
    const cells: string[] = [];
    for (let cell = tr.firstElementChild; cell; cell = cell.nextElementSibling) {
      const tag = tagOf(cell);
      if (tag !== 'TD' && tag !== 'TH') continue;
      const text = renderBlocks(cell, ctx)
        .join(' ')
        .replace(/\s*\n+\s*/g, ' ')
        .replace(/\|/g, '\\|');
      cells.push(text.trim());
    }
    if (cells.length > 0) rows.push(cells);
  }
  if (rows.length === 0) return '';
  const width = Math.max(...rows.map((r) => r.length));
  const line = (cells: string[]): string => {
    const padded = [...cells, ...Array<string>(width - cells.length).fill('')];
    return `| ${padded.join(' | ')} |`;
  };
  const [head = [], ...body] = rows;
  return [line(head), `|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n');
}

function inlineText(el: Element, ctx: Context): string {
  let out = '';
  for (let child = el.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 3) out += collapse(child.nodeValue ?? '');
    else if (child.nodeType === 1 && !SKIP.has(tagOf(child)) && !ctx.skip?.(child as Element)) {
      out += renderInline(child as Element, ctx);
    }
  }
  return out;
}

function renderInline(el: Element, ctx: Context): string {
  const tag = tagOf(el);
  switch (tag) {
    case 'BR':
      return '\n';
    case 'CODE':
    case 'KBD':
    case 'SAMP':
    case 'TT': {
      const text = (el.textContent ?? '').replace(/\s+/g, ' ');
      if (!text.trim()) return text;
      const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
      const ticks = '`'.repeat(longest + 1);
      const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
      return `${ticks}${pad}${text}${pad}${ticks}`;
    }
    case 'STRONG':
    case 'B':
      return wrap(inlineText(el, ctx), '**');
    case 'EM':
    case 'I':
      return wrap(inlineText(el, ctx), '_');
    case 'A':
      return link(el, inlineText(el, ctx), ctx);
    default:
      if (BLOCKS.has(tag)) return ` ${renderBlocks(el, ctx).join(' ')} `;
      return inlineText(el, ctx);
  }
}

function wrap(text: string, mark: string): string {
  const trimmed = text.trim();
  if (!trimmed) return text;
  const lead = /^\s/.test(text) ? ' ' : '';
  const trail = /\s$/.test(text) ? ' ' : '';
  return `${lead}${mark}${trimmed}${mark}${trail}`;
}

function link(el: Element, text: string, ctx: Context): string {
  if (ctx.links === 'text' || !text.trim()) return text;
  const href = el.getAttribute('href');
  if (!href || href.startsWith('#')) return text;
  let absolute: string;
  try {
    absolute = new URL(href, ctx.base).href;
  } catch {
    return text;
  }
  if (!/^https?:/.test(absolute)) return text;
  const lead = /^\s/.test(text) ? ' ' : '';
  const trail = /\s$/.test(text) ? ' ' : '';
  return `${lead}[${text.trim()}](${absolute})${trail}`;
}

function collapse(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ');
}

/** A paragraph that would read as a heading, list item or quote gets a backslash. */
function escapeLineStart(text: string): string {
  return text.replace(/^(#{1,6}\s|>|[-+*]\s|\d+\.\s)/gm, '\\$1');
}
