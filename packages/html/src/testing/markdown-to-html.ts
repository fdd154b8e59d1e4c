/**
 * A small markdown → HTML renderer for test sites: ATX headings, paragraphs, nested lists, code
 * fences, GFM tables, block quotes, inline code, links, emphasis, and raw HTML lines passed
 * through. Enough for documentation corpora; not CommonMark.
 */
export function markdownToHtml(markdown: string, rewriteLink: (href: string) => string = (h) => h): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let i = 0;

  const inline = (text: string): string => renderInline(text, rewriteLink);

  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (!line.trim()) {
      i++;
      continue;
    }
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w#+.-]*)/.exec(line);
    if (fence) {
      const [, indent = '', marker = '```', lang = ''] = fence;
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? '').trim().startsWith(marker)) {
        body.push(
          (lines[i] ?? '').startsWith(indent) ? (lines[i] ?? '').slice(indent.length) : (lines[i] ?? ''),
        );
        i++;
      }
      i++;
      const cls = lang ? ` class="language-${lang}"` : '';
      out.push(`<pre><code${cls}>${escapeHtml(body.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const level = heading[1]?.length ?? 1;
      const text = heading[2] ?? '';
      out.push(`<h${level} id="${slug(text)}">${inline(text)}</h${level}>`);
      i++;
      continue;
    }
    if (/^\s*<\/?[a-zA-Z][^>]*>/.test(line)) {
      out.push(line);
      i++;
      continue;
    }
    if (/^\s*(-{3,}|\*{3,}|_{3,})\s*$/.test(line)) {
      out.push('<hr>');
      i++;
      continue;
    }
    if (/^\s*\|/.test(line) && /^\s*\|?\s*:?-{2,}/.test(lines[i + 1] ?? '')) {
      const rows: string[][] = [];
      while (i < lines.length && /^\s*\|/.test(lines[i] ?? '')) {
        rows.push(splitRow(lines[i] ?? ''));
        i++;
      }
      const [head = [], , ...body] = rows;
      const th = head.map((c) => `<th>${inline(c)}</th>`).join('');
      const trs = body.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('\n');
      out.push(`<table><thead><tr>${th}</tr></thead><tbody>\n${trs}\n</tbody></table>`);
      continue;
    }
    if (/^\s*>/.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && /^\s*>/.test(lines[i] ?? '')) {
        quoted.push((lines[i] ?? '').replace(/^\s*>\s?/, ''));
        i++;
      }
      out.push(`<blockquote>${markdownToHtml(quoted.join('\n'), rewriteLink)}</blockquote>`);
      continue;
    }
    if (LIST_ITEM.test(line)) {
      const block: string[] = [];
      while (i < lines.length) {
        const l = lines[i] ?? '';
        if (!l.trim()) {
          const next = lines[i + 1] ?? '';
          if (LIST_ITEM.test(next) || /^\s{2,}\S/.test(next)) {
            block.push('');
            i++;
            continue;
          }
          break;
        }
        if (block.length > 0 && !LIST_ITEM.test(l) && !/^\s/.test(l)) {
          // A lazy continuation line belongs to the last item.
          if (/^(#|```|\|)/.test(l)) break;
        }
        block.push(l);
        i++;
      }
      out.push(renderList(block, rewriteLink));
      continue;
    }
    const para: string[] = [];
    while (i < lines.length) {
      const l = lines[i] ?? '';
      if (!l.trim() || /^(#{1,6}\s|\s*(`{3,}|~{3,})|\s*>|\s*\|)/.test(l) || LIST_ITEM.test(l)) break;
      if (para.length > 0 && /^\s*<\/?[a-zA-Z][^>]*>/.test(l)) break;
      para.push(l.trim());
      i++;
    }
    out.push(`<p>${inline(para.join(' '))}</p>`);
  }
  return out.join('\n');
}

const LIST_ITEM = /^(\s*)([-*+]|\d+[.)])\s+/;

function renderList(lines: string[], rewriteLink: (href: string) => string): string {
  const first = LIST_ITEM.exec(lines[0] ?? '');
  const indent = first?.[1]?.length ?? 0;
  const ordered = /\d/.test(first?.[2] ?? '');
  const items: string[][] = [];
  for (const line of lines) {
    const m = LIST_ITEM.exec(line);
    if (m && (m[1]?.length ?? 0) <= indent) items.push([line.slice(m[0].length)]);
    else items[items.length - 1]?.push(line);
  }
  const html = items.map((item) => {
    const [head = '', ...rest] = item;
    const minIndent = Math.min(
      ...rest.filter((l) => l.trim()).map((l) => /^\s*/.exec(l)?.[0].length ?? 0),
      Number.POSITIVE_INFINITY,
    );
    const body = rest.map((l) => (Number.isFinite(minIndent) ? l.slice(minIndent) : l)).join('\n');
    // The first lines up to a blank or nested block are the item's own text.
    const split = body.search(/\n\s*\n|^\s*(([-*+]|\d+[.)])\s|```)/m);
    const ownTail = split === -1 ? body : body.slice(0, split);
    const nested = split === -1 ? '' : body.slice(split);
    const text = [head, ...ownTail.split('\n')]
      .map((l) => l.trim())
      .filter(Boolean)
      .join(' ');
    const inner = nested.trim() ? markdownToHtml(nested, rewriteLink) : '';
    return `<li>${renderInline(text, rewriteLink)}${inner}</li>`;
  });
  const tag = ordered ? 'ol' : 'ul';
  return `<${tag}>\n${html.join('\n')}\n</${tag}>`;
}

function splitRow(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'));
}

function renderInline(text: string, rewriteLink: (href: string) => string): string {
  // Code spans become placeholders first so link labels may contain them.
  const spans: string[] = [];
  const withoutCode = text.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (_m, _ticks: string, code: string) => {
    spans.push(`<code>${escapeHtml(code.trim())}</code>`);
    return `\u0000${spans.length - 1}\u0000`;
  });
  return escapeKeepingTags(withoutCode)
    .replace(/!\[([^\]]*)\]\(([^)\s]+)[^)]*\)/g, '<img alt="$1" src="$2">')
    .replace(/\[([^\]]+)\]\(([^)\s]+)[^)]*\)/g, (_m, label: string, href: string) => {
      return `<a href="${escapeAttr(rewriteLink(href))}">${label}</a>`;
    })
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[\s(])_([^_]+)_(?=[\s).,;:!?]|$)/g, '$1<em>$2</em>')
    .replace(/(^|[\s(])\*([^*]+)\*(?=[\s).,;:!?]|$)/g, '$1<em>$2</em>')
    .replace(/\u0000(\d+)\u0000/g, (_m, n: string) => spans[Number(n)] ?? '');
}

/** Escapes `<` and `&` except in what looks like an inline HTML tag the author wrote. */
function escapeKeepingTags(text: string): string {
  return text
    .replace(/&(?![a-zA-Z]+;|#\d+;)/g, '&amp;')
    .replace(/<(?!\/?[a-zA-Z][\w-]*(\s[^<>]*)?\/?>)/g, '&lt;');
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttr(text: string): string {
  return escapeHtml(text).replace(/"/g, '&quot;');
}

export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/<[^>]+>|`/g, '')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/\s+/g, '-');
}
