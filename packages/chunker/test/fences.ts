/**
 * Test helper: whether every fenced code block in `markdown` is closed, by CommonMark's rule
 * (a closing fence uses the same character, at least as many of them, and nothing else).
 */
export function fencesBalanced(markdown: string): boolean {
  let open: { ch: string; len: number } | undefined;
  for (const line of markdown.split('\n')) {
    const m = /^\s*(`{3,}|~{3,})(.*)$/.exec(line);
    if (!m) continue;
    const run = m[1] ?? '';
    const rest = m[2] ?? '';
    if (!open) {
      if (run[0] === '`' && rest.includes('`')) continue;
      open = { ch: run[0] ?? '', len: run.length };
    } else if (run[0] === open.ch && run.length >= open.len && rest.trim() === '') {
      open = undefined;
    }
  }
  return open === undefined;
}

/** Fenced code blocks of `markdown` (at any indentation), from opening to closing line. */
export function fencedBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i] ?? '');
    if (!m) continue;
    const run = m[2] ?? '';
    if (run[0] === '`' && (m[3] ?? '').includes('`')) continue;
    let j = i + 1;
    for (; j < lines.length; j++) {
      const c = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[j] ?? '');
      if (c && (c[1] ?? '')[0] === run[0] && (c[1] ?? '').length >= run.length) break;
    }
    if (j >= lines.length) break;
    blocks.push(lines.slice(i, j + 1).join('\n'));
    i = j;
  }
  return blocks;
}
