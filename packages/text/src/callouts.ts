/**
 * Callouts (admonitions) of documentation generators: boxes such as "Warning: do not ..." whose
 * markup (`:::tip`, `!!! note`, `> [!NOTE]`, `{% hint %}`, `.. note::`) reads as noise once it is
 * quoted as text. The markers go; the callout's own text, code included, stays where it was.
 */

/**
 * Titles that only name the callout's kind. A generator prints one when the author gave none, so
 * it is a label, not a sentence of the page. Compared lower-cased, without icon or colon.
 */
const TYPE_TITLES: ReadonlySet<string> = new Set([
  'note',
  'notice',
  'tip',
  'tips',
  'info',
  'information',
  'hint',
  'warning',
  'caution',
  'danger',
  'important',
  'details',
  'attention',
  'error',
  'see also',
  'seealso',
]);

const LEADING_ICONS = /^(?:[\p{Extended_Pictographic}\u2139\u26A0]\uFE0F?\s*)+/u;

/**
 * The title of a callout as it should be kept: '' when it is empty or only names the callout's
 * kind ("Note", "WARNING:", "ℹ️ Info"), else the title without a leading icon, emphasis around it
 * or a trailing colon.
 */
export function calloutTitle(raw: string): string {
  const title = raw
    .replace(/\s+/g, ' ')
    .trim()
    .replace(LEADING_ICONS, '')
    .replace(/^(\*\*|__)(.+)\1$/, '$2')
    .replace(/\s*:$/, '')
    .trim();
  return TYPE_TITLES.has(title.toLowerCase()) ? '' : title;
}

/** Where a marker line was: a paragraph break, unless one is already there. */
const GAP = Symbol('gap');
type Line = string | typeof GAP;

/** Any line that could hold a marker; text without one is returned as it came. */
const MAYBE = /:::|!!!|\?\?\?|\[!|\{%\s*(?:end)?hint|^\s*\.\.\s|^\s*>\s*[a-z]+\s+\*\*/im;
/** A fence at any indentation (callouts put code in lists and indented bodies), also in a quote. */
const FENCE = /^\s*(?:>\s?)*(`{3,}|~{3,})(.*)$/;
/** `:::tip`, `::: warning Title`, `:::note[Title]`, `:::tip{title="Title"}`, `::: {.callout-note}`. */
const CONTAINER_OPEN = /^(\s*)(:{3,})[ \t]*(?:([A-Za-z][\w-]*)[ \t]*)?(.*)$/;
const CONTAINER_CLOSE = /^\s*:{3,}\s*$/;
/** MkDocs admonitions (`!!!`) and collapsible blocks (`???`, `???+`), python-markdown's syntax. */
const MKDOCS = /^(\s*)(?:!!!|\?\?\?\+?)[ \t]*[\w-]+(?:[ \t]+[\w-]+)*(?:[ \t]+"(.*)")?[ \t]*$/;
const REST_ADMONITIONS = 'note|warning|tip|hint|important|caution|danger|attention|error|seealso|admonition';
/** reST admonition directives; the argument is the title of `admonition`, the first words of the others. */
const REST = new RegExp(`^(\\s*)\\.\\.[ \\t]+(${REST_ADMONITIONS})::(?:[ \\t]+(.*))?$`, 'i');
const REST_OPTION = /^\s+:[\w-]+:/;
const HINT_OPEN = /^(\s*)\{%\s*hint\b[^%]*%\}(.*)$/;
const HINT_CLOSE = /^(.*?)\{%\s*endhint\s*%\}\s*$/;
/** GitHub alerts `> [!NOTE]`; Obsidian's `> [!tip]- Title` form carries a title after it. */
const ALERT = /^(\s*(?:>[ \t]?)+)\[!([A-Za-z]+)\][+-]?[ \t]*(.*)$/;
/** NestJS docs: `> warning **Warning** text`, `> info **Hint** text` on a quote's first line. */
const QUOTE_LABEL =
  /^(\s*>[ \t]?)(?:info|warning|error|danger|tip|note|hint|caution|important|success)[ \t]+\*\*([^*]+)\*\*[ \t]*:?[ \t]*(.*)$/i;
const QUOTE = /^\s*>/;

/**
 * Removes the callout markup of Docusaurus and VitePress (`:::type Title` ... `:::`, nested
 * with longer fences or not), MkDocs (`!!! type "Title"`, `??? type`, `???+ type` with a
 * four-space body, dedented), GitBook (`{% hint %}` ... `{% endhint %}`), reST (`.. note::` and
 * the other admonition directives with their indented body, dedented), GitHub alerts
 * (`> [!NOTE]`, the quoted body kept) and NestJS's docs (`> warning **Warning** text`).
 *
 * A title that only names the callout's kind is dropped; a title of the author's own stays as
 * a paragraph of its own, so it is never read as the start of the body's first sentence.
 * Fenced code is never touched: a `:::` inside it is code. Callouts in list items keep the
 * item's indentation.
 */
export function stripCallouts(markdown: string): string {
  if (!MAYBE.test(markdown)) return markdown;
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  return settle(strip(lines)).join('\n');
}

/**
 * Indented callouts (MkDocs, reST) nested deeper than this are left as they are: each level
 * reads its body again, and a cap keeps the time linear on hostile input.
 */
const MAX_DEPTH = 8;

function strip(lines: readonly string[], depth = 0): Line[] {
  const out: Line[] = [];
  let fence: string | undefined;
  /** Open `:::` containers; any bare `:::` closes the innermost, as authors nest them. */
  let containers = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const fenceMatch = FENCE.exec(line);
    if (fence !== undefined) {
      out.push(line);
      const marker = fenceMatch?.[1] ?? '';
      if (marker[0] === fence[0] && marker.length >= fence.length && !fenceMatch?.[2]?.trim()) {
        fence = undefined;
      }
      continue;
    }
    if (fenceMatch && !(fenceMatch[1]?.startsWith('`') && fenceMatch[2]?.includes('`'))) {
      fence = fenceMatch[1];
      out.push(line);
      continue;
    }

    if (CONTAINER_CLOSE.test(line)) {
      if (containers > 0) {
        containers -= 1;
        out.push(GAP);
      } else out.push(line);
      continue;
    }
    const container = CONTAINER_OPEN.exec(line);
    if (container && (container[3] || container[4]?.startsWith('{'))) {
      containers += 1;
      pushTitled(out, container[1] ?? '', containerTitle(container[4] ?? ''), []);
      continue;
    }

    const mkdocs = depth < MAX_DEPTH ? MKDOCS.exec(line) : null;
    if (mkdocs) {
      const indent = mkdocs[1] ?? '';
      const width = columns(indent) + 4;
      const end = blockEnd(lines, i + 1, (l) => columns(leading(l)) >= width);
      const body = lines.slice(i + 1, end).map((l) => dedent(l, width));
      pushTitled(out, indent, calloutTitle(mkdocs[2] ?? ''), strip(body, depth + 1));
      i = end - 1;
      continue;
    }

    const rest = depth < MAX_DEPTH ? REST.exec(line) : null;
    if (rest) {
      const indent = rest[1] ?? '';
      const width = columns(indent);
      let start = i + 1;
      while (start < lines.length && REST_OPTION.test(lines[start] ?? '')) start++;
      const end = blockEnd(lines, start, (l) => columns(leading(l)) > width);
      const nested = lines.slice(start, end);
      let min = Number.POSITIVE_INFINITY;
      for (const l of nested) if (l.trim() !== '') min = Math.min(min, columns(leading(l)));
      const body = nested.map((l) => dedent(l, Number.isFinite(min) ? min : 0));
      const argument = (rest[3] ?? '').trim();
      if ((rest[2] ?? '').toLowerCase() === 'admonition') {
        pushTitled(out, indent, calloutTitle(argument), strip(body, depth + 1));
      } else {
        // The argument of `.. note:: Text` is the first line of the body's first paragraph.
        pushTitled(out, indent, '', strip(argument ? [argument, ...body] : body, depth + 1));
      }
      i = end - 1;
      continue;
    }

    const hintOpen = HINT_OPEN.exec(line);
    if (hintOpen) {
      out.push(GAP);
      if (hintOpen[2]?.trim()) out.push((hintOpen[1] ?? '') + hintOpen[2].trim());
      continue;
    }
    const hintClose = HINT_CLOSE.exec(line);
    if (hintClose) {
      if (hintClose[1]?.trim()) out.push(hintClose[1].trimEnd());
      out.push(GAP);
      continue;
    }

    const firstOfQuote = i === 0 || !QUOTE.test(lines[i - 1] ?? '');
    const alert = ALERT.exec(line);
    if (alert && firstOfQuote) {
      quoteTitled(out, alert[1] ?? '> ', calloutTitle(alert[3] ?? ''), '');
      continue;
    }
    const label = QUOTE_LABEL.exec(line);
    if (label && firstOfQuote) {
      quoteTitled(out, label[1] ?? '> ', calloutTitle(label[2] ?? ''), (label[3] ?? '').trim());
      continue;
    }
    out.push(line);
  }
  return out;
}

/** The title of a `:::` opener's rest: `[Title]`, `{title="Title"}` or plain words. */
function containerTitle(rest: string): string {
  const text = rest.trim();
  if (text.startsWith('[')) return calloutTitle(text.slice(1, text.lastIndexOf(']')));
  if (text.startsWith('{')) return calloutTitle(/\btitle=(["'])(.*?)\1/.exec(text)?.[2] ?? '');
  return calloutTitle(text);
}

/** A callout's title as its own paragraph, then its body, set off from what surrounds it. */
function pushTitled(out: Line[], indent: string, title: string, body: Line[]): void {
  out.push(GAP);
  if (title) out.push(indent + title, GAP);
  // Blank lines at the body's start are the gap already pushed; later ones may be code's.
  let start = 0;
  while (start < body.length && isBlankLine(body[start])) start++;
  for (const line of body.slice(start)) out.push(line === GAP || line === '' ? line : indent + line);
  out.push(GAP);
}

function isBlankLine(line: Line | undefined): boolean {
  return line === GAP || (line !== undefined && line.trim() === '');
}

/** A marker on a quote's first line: the title as the quote's own first paragraph, the text after it kept. */
function quoteTitled(out: Line[], prefix: string, title: string, text: string): void {
  if (title) out.push(prefix + title, prefix.trimEnd());
  if (text) out.push(prefix + text);
}

/** Index of the first line after an indented body: lines `inside` accepts, and blank lines between them. */
function blockEnd(lines: readonly string[], start: number, inside: (line: string) => boolean): number {
  let end = start;
  for (let j = start; j < lines.length; j++) {
    const l = lines[j] ?? '';
    if (l.trim() === '') continue;
    if (!inside(l)) break;
    end = j + 1;
  }
  return end;
}

function leading(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? '';
}

/** Width in columns, a tab reaching the next multiple of 4. */
function columns(space: string): number {
  let cols = 0;
  for (const c of space) cols = c === '\t' ? cols + 4 - (cols % 4) : cols + 1;
  return cols;
}

/** Removes up to `width` columns of leading whitespace. */
function dedent(line: string, width: number): string {
  let cols = 0;
  let i = 0;
  while (i < line.length && cols < width) {
    const c = line[i];
    if (c === ' ') cols += 1;
    else if (c === '\t') cols += 4 - (cols % 4);
    else break;
    i++;
  }
  return line.slice(i);
}

/** Turns gaps into single blank lines: none at either end or next to a blank line already there. */
function settle(lines: readonly Line[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line !== GAP) {
      out.push(line ?? '');
      continue;
    }
    const before = out[out.length - 1];
    let j = i + 1;
    while (j < lines.length && lines[j] === GAP) j++;
    const after = lines[j];
    if (before !== undefined && before.trim() !== '' && typeof after === 'string' && after.trim() !== '') {
      out.push('');
    }
    i = j - 1;
  }
  return out;
}
