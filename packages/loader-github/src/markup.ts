import { fenceOpen, indentWidth, isFenceClose, parseMarkdown, type Fence } from '@kbqa/text';

/** Markup families the loader turns into markdown. */
export type Markup = 'markdown' | 'mdx' | 'rst' | 'asciidoc' | 'text';

export interface ConvertedFile {
  markdown: string;
  /** Title from front matter or the first heading, when there is one. */
  title?: string;
}

/** Splits off YAML (`---`) or TOML (`+++`) front matter and returns its `title`, if any. */
export function stripFrontMatter(text: string): { body: string; title?: string } {
  const match = /^(---|\+\+\+)[ \t]*\r?\n([\s\S]*?)\r?\n\1[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return { body: text };
  const titleLine = /^title\s*[:=]\s*(.+?)\s*$/m.exec(match[2] ?? '');
  const title = titleLine?.[1]?.replace(/^(['"])(.*)\1$/, '$2').trim();
  return { body: text.slice(match[0].length), ...(title ? { title } : {}) };
}

/** Calls `fn` on every line outside fenced code blocks; fenced lines pass through unchanged. */
function mapOutsideFences(lines: string[], fn: (line: string, index: number) => string | null): string[] {
  const out: string[] = [];
  let fence: Fence | null = null;
  lines.forEach((line, index) => {
    if (fence) {
      out.push(line);
      if (isFenceClose(line, fence)) fence = null;
      return;
    }
    fence = indentWidth(line) <= 3 ? fenceOpen(line) : null;
    if (fence) {
      out.push(line);
      return;
    }
    const mapped = fn(line, index);
    if (mapped !== null) out.push(mapped);
  });
  return out;
}

/**
 * MDX to markdown: drops ESM `import`/`export` statements (also multi-line ones), JSX comments
 * and JSX tags, and keeps the text between tags.
 */
export function mdxToMarkdown(text: string): string {
  let inEsm = false;
  const lines = mapOutsideFences(text.split('\n'), (line) => {
    if (inEsm) {
      if (/(from\s+['"][^'"]+['"]|['"][^'"]+['"])\s*;?\s*$|^\s*[}\]);]+\s*;?\s*$/.test(line)) inEsm = false;
      return null;
    }
    if (/^(import|export)\s/.test(line)) {
      const complete =
        /^import\s+['"][^'"]+['"];?\s*$/.test(line) ||
        /from\s+['"][^'"]+['"];?\s*$/.test(line) ||
        (/^export\s/.test(line) && /;\s*$|^export\s+(default\s+)?[\w$]+;?\s*$/.test(line)) ||
        (/^export\s+(const|let|var)\s.*=\s*[^{[(]+$/.test(line) && !/[{[(]\s*$/.test(line));
      inEsm = !complete;
      return null;
    }
    const stripped = line
      .replace(/\{\/\*[\s\S]*?\*\/\}/g, '')
      .replace(/<\/?[A-Za-z][\w.:-]*(?:\s+(?:[^<>"'{}]|"[^"]*"|'[^']*'|\{[^{}]*\})*)?\s*\/?>/g, '');
    // A line that held only tags disappears instead of leaving a stray blank line in a list.
    return stripped.trim() === '' && line.trim() !== '' ? null : stripped;
  });
  return lines.join('\n');
}

/** Admonition directives, whose body is prose under a label. */
const REST_ADMONITIONS: ReadonlySet<string> = new Set([
  'note',
  'warning',
  'tip',
  'important',
  'caution',
  'danger',
  'hint',
  'attention',
  'error',
  'seealso',
  'admonition',
]);

const RST_ADORNMENT = /^([=\-~^"'`#*+:.<>_!$%&,/;?@\\|])\1{2,}\s*$/;

/** Inline reStructuredText roles, literals and links to markdown. */
function rstInline(line: string): string {
  return line
    .replace(/``([^`]+)``/g, '`$1`')
    .replace(/`([^`<]+?)\s*<([^>]+)>`__?/g, '[$1]($2)')
    .replace(/:[\w:-]+:`([^`<]+?)\s*<[^>]+>`/g, '`$1`')
    .replace(/:[\w:-]+:`([^`]+)`/g, '`$1`')
    .replace(/`([^`]+)`_/g, '$1');
}

/**
 * reStructuredText to markdown: section titles (underlined, optionally overlined) become `#`
 * headings, levels in the order their adornment styles first appear, as docutils assigns them;
 * `code-block`/`code`/`sourcecode` directives and `::` literal blocks become fenced code; admonitions
 * (`.. note::`) stay directives, their body converted; comments and other directive markers are
 * dropped while their indented content is kept.
 */
export function rstToMarkdown(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const styles: string[] = [];
  const out: string[] = [];
  const level = (style: string): number => {
    if (!styles.includes(style)) styles.push(style);
    return Math.min(styles.indexOf(style) + 1, 6);
  };
  const indentOf = (l: string): number => /^\s*/.exec(l)?.[0].length ?? 0;
  /** Collects the indented block starting at `start` (after blank lines); returns its end. */
  const block = (start: number): { body: string[]; end: number } => {
    let i = start;
    const body: string[] = [];
    let minIndent = Infinity;
    while (i < lines.length) {
      const l = lines[i] ?? '';
      if (l.trim() === '') {
        body.push('');
        i++;
        continue;
      }
      if (indentOf(l) === 0) break;
      minIndent = Math.min(minIndent, indentOf(l));
      body.push(l);
      i++;
    }
    while (body.length && body[body.length - 1] === '') {
      body.pop();
      i--;
    }
    while (body.length && body[0] === '') body.shift();
    return { body: body.map((l) => l.slice(Math.min(minIndent, indentOf(l)))), end: i };
  };

  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    const next = lines[i + 1] ?? '';
    const after = lines[i + 2] ?? '';
    // Overlined title: adornment, title, same adornment.
    if (
      RST_ADORNMENT.test(line) &&
      next.trim() !== '' &&
      RST_ADORNMENT.test(after) &&
      line.trim()[0] === after.trim()[0]
    ) {
      out.push(`${'#'.repeat(level(`over${line.trim()[0]}`))} ${rstInline(next.trim())}`);
      i += 3;
      continue;
    }
    // Underlined title: a text line followed by an adornment at least as long.
    if (
      line.trim() !== '' &&
      indentOf(line) === 0 &&
      !RST_ADORNMENT.test(line) &&
      RST_ADORNMENT.test(next) &&
      next.trim().length >= line.trim().length
    ) {
      out.push(`${'#'.repeat(level(next.trim()[0] ?? '='))} ${rstInline(line.trim())}`);
      i += 2;
      continue;
    }
    const code = /^(\s*)\.\.\s+(?:code-block|code|sourcecode)::\s*(\S*)/.exec(line);
    if (code) {
      let j = i + 1;
      while (j < lines.length && /^\s+:[\w-]+:/.test(lines[j] ?? '')) j++; // directive options
      const { body, end } = block(j);
      out.push(`\`\`\`${code[2] ?? ''}`, ...body, '```');
      i = end;
      continue;
    }
    const directive = /^\s*\.\.\s+([\w-]+)::\s*(.*)$/.exec(line);
    if (directive) {
      let j = i + 1;
      while (j < lines.length && /^\s+:[\w-]+:/.test(lines[j] ?? '')) j++;
      const name = directive[1] ?? '';
      const { body, end } = block(j);
      if (
        !['toctree', 'image', 'figure', 'include', 'raw', 'only', 'meta', 'contents', 'index'].includes(name)
      ) {
        const label = directive[2]?.trim();
        if (REST_ADMONITIONS.has(name)) {
          // Kept as a directive: the chunker's stripCallouts (@kbqa/text) removes the callout markup
          // of every kind of document by one rule, titles included.
          out.push(`.. ${name}::${label ? ` ${rstInline(label)}` : ''}`);
          // A blank line after `.. note:: Text` makes the body a paragraph of its own.
          if (label && (lines[j] ?? '').trim() === '') out.push('');
          out.push(
            ...rstToMarkdown(body.join('\n'))
              .split('\n')
              .map((l) => (l === '' ? '' : `   ${l}`)),
          );
        } else {
          if (label) out.push(rstInline(label));
          out.push(...body.map(rstInline));
        }
      }
      i = end;
      continue;
    }
    if (/^\s*\.\.(\s|$)/.test(line)) {
      // Comment, link target or substitution definition: skip it with its indented continuation.
      i = block(i + 1).end;
      continue;
    }
    if (/::\s*$/.test(line) && !/^\s*\.\./.test(line)) {
      const { body, end } = block(i + 1);
      // `Text::` keeps one colon, `Text ::` none, a lone `::` disappears (docutils' rules).
      const trimmed = line.trimEnd();
      const paragraph = /^\s*::$/.test(trimmed)
        ? ''
        : /\s::$/.test(trimmed)
          ? trimmed.replace(/\s+::$/, '')
          : trimmed.slice(0, -1);
      if (paragraph.trim() !== '') out.push(rstInline(paragraph));
      if (body.length) out.push('', '```', ...body, '```');
      i = end;
      continue;
    }
    out.push(rstInline(line));
    i++;
  }
  return out.join('\n');
}

/**
 * AsciiDoc to markdown: `=`…`======` section titles become `#` headings, `[source,lang]` or bare
 * `----` / `....` blocks become fenced code, comments, attribute entries and block attributes go.
 */
export function asciidocToMarkdown(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let pendingLang = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (/^\/\/\/\/\s*$/.test(line)) {
      while (i + 1 < lines.length && !/^\/\/\/\/\s*$/.test(lines[i + 1] ?? '')) i++;
      i++;
      continue;
    }
    if (/^\/\//.test(line)) continue;
    const heading = /^(={1,6})\s+(.+?)\s*=*\s*$/.exec(line);
    if (heading) {
      out.push(`${'#'.repeat(heading[1]?.length ?? 1)} ${heading[2] ?? ''}`);
      continue;
    }
    const source = /^\[(?:source|listing)?(?:,\s*([\w+#.-]+))?[^\]]*\]\s*$/.exec(line);
    if (source && /^(-{4,}|\.{4,})\s*$/.test(lines[i + 1] ?? '')) {
      pendingLang = source[1] ?? '';
      continue;
    }
    const delimiter = /^(-{4,}|\.{4,})\s*$/.exec(line);
    if (delimiter) {
      const close = delimiter[1] ?? '----';
      out.push(`\`\`\`${pendingLang}`);
      pendingLang = '';
      while (i + 1 < lines.length && (lines[i + 1] ?? '').trim() !== close) out.push(lines[++i] ?? '');
      i++;
      out.push('```');
      continue;
    }
    if (/^:[\w-]+!?:/.test(line) || /^\[[^\]]*\]\s*$/.test(line)) continue;
    out.push(
      line
        .replace(
          /\b(?:link:|https?:\/\/)([^\s[]+)\[([^\]]+)\]/g,
          (m: string, target: string, label: string) =>
            m.startsWith('link:') ? `[${label}](${target})` : `[${label}](${m.slice(0, m.indexOf('['))})`,
        )
        .replace(/(^|\s)\.(?=[A-Z])/, '$1'),
    );
  }
  return out.join('\n');
}

/** The title of the first heading (ATX `# Title` or setext) that has one, outside code. */
export function firstHeading(markdown: string): string | undefined {
  for (const block of parseMarkdown(markdown))
    if (block.kind === 'heading' && block.title) return block.title;
  return undefined;
}

/** Converts one documentation file to markdown and finds its title. */
export function convertMarkup(text: string, markup: Markup): ConvertedFile {
  const clean = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  let markdown: string;
  let title: string | undefined;
  switch (markup) {
    case 'markdown':
    case 'mdx': {
      const front = stripFrontMatter(clean);
      title = front.title;
      markdown = markup === 'mdx' ? mdxToMarkdown(front.body) : front.body;
      break;
    }
    case 'rst':
      markdown = rstToMarkdown(clean);
      break;
    case 'asciidoc':
      markdown = asciidocToMarkdown(clean);
      break;
    case 'text':
      markdown = clean;
      break;
  }
  markdown = markdown.replace(/\n{3,}/g, '\n\n').trim();
  title ??= markup === 'text' ? undefined : firstHeading(markdown);
  return title ? { markdown, title } : { markdown };
}
