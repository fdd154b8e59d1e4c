/**
 * Markup that is not prose: it tells a site generator or a linter what to do and reads as noise
 * in an answer or a source snippet. One rule here so that answers and snippets agree.
 */

const FENCE = /^\s*(?:>\s?)?(`{3,}|~{3,})/;
/** `:::tip Title`, `:::` (Docusaurus, VitePress) and `!!! note` (MkDocs) lines. */
const DIRECTIVE_LINE = /^\s*(?::{3,}[\w-]*(?:\s.*)?|!!!\s+\w+.*|\?\?\?\+?\s+\w+.*)$/;
/** `> [!NOTE]` (GitHub alerts) on a line of its own. */
const ALERT_LINE = /^\s*>\s*\[!(?:note|tip|important|warning|caution|info|danger)\]\s*$/i;
/** A line made only of an HTML anchor or empty element, as docs put before headings. */
const ANCHOR_LINE =
  /^\s*(?:<a\s[^>]*>\s*<\/a>|<(?:a|span|div)\s+(?:id|name)="[^"]*"\s*\/?>(?:\s*<\/(?:a|span|div)>)?)\s*$/i;
const ADMONITION_LABEL =
  '(?:note|notice|tip|hint|info|important|warning|caution|danger|attention|security(?: considerations?)?)';
/**
 * An admonition label at the start of a line (after any quote marker): an emoji before it, or
 * the label in bold. A plain "Note:" is left, since it reads as prose.
 */
const ADMONITION = new RegExp(
  `^(\\s*(?:>\\s*)*)(?:(?:\\p{Extended_Pictographic}|[\\u2139\\u26A0])\\uFE0F?\\s*(?:\\*\\*)?${ADMONITION_LABEL}(?:\\*\\*)?\\s*:?(?:\\*\\*)?|\\*\\*${ADMONITION_LABEL}:?\\*\\*:?)\\s*`,
  'iu',
);
/** Comments in code that steer a docs site's highlighter or a linter, not the reader. */
const CODE_DIRECTIVE =
  /^\s*(?:\/\/|#|--|<!--|\{?\/\*)\s*(?:highlight-(?:next-line|start|end|line)|prettier-ignore|eslint-(?:disable|enable)[\w-]*|markdownlint-[\w-]+|#?(?:end)?region\b|\[!code\b|snippet-(?:start|end)|docs?-(?:start|end)|tabs?:|title[=:])/i;
const TRAILING_CODE_DIRECTIVE = /\s*(?:\/\/|#)\s*(?:highlight-line|\[!code [^\]]*\])\s*$/i;

/**
 * Removes markup that is not prose from markdown, line by line in one pass: HTML comments (also
 * across lines), admonition markers (`> ℹ️ Note:`, `**Warning:**`, `> [!NOTE]`, `:::tip`, `!!! note`)
 * while keeping their text, anchor-only HTML lines, and build directives inside code blocks
 * (`// highlight-next-line`, `// prettier-ignore`, `<!-- markdownlint-disable -->`). Code is
 * otherwise untouched; blank lines are kept so paragraphs stay apart.
 */
export function cleanMarkup(markdown: string): string {
  if (!/[<:!>*\p{Extended_Pictographic}\u2139\u26A0/#-]/u.test(markdown)) return markdown;
  const lines = markdown.split('\n');
  const out: string[] = [];
  let fence: string | undefined;
  let inComment = false;
  for (const raw of lines) {
    let line = raw;
    if (inComment) {
      const end = line.indexOf('-->');
      if (end < 0) continue;
      inComment = false;
      line = line.slice(end + 3);
      if (line.trim() === '') continue;
    }
    const fenceMatch = FENCE.exec(line);
    if (fence !== undefined) {
      if (fenceMatch && fenceMatch[1]?.[0] === fence[0] && (fenceMatch[1]?.length ?? 0) >= fence.length) {
        fence = undefined;
        out.push(line);
        continue;
      }
      if (CODE_DIRECTIVE.test(line)) continue;
      out.push(line.replace(TRAILING_CODE_DIRECTIVE, ''));
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1];
      out.push(line);
      continue;
    }
    if (line.includes('<!--')) {
      line = line.replace(/<!--[\s\S]*?-->/g, '');
      const open = line.indexOf('<!--');
      if (open >= 0) {
        inComment = true;
        line = line.slice(0, open);
      }
      if (line.trim() === '' && raw.trim() !== '') continue;
    }
    if (DIRECTIVE_LINE.test(line) || ALERT_LINE.test(line) || ANCHOR_LINE.test(line)) continue;
    const admonition = ADMONITION.exec(line);
    if (admonition) {
      line = (admonition[1] ?? '') + line.slice(admonition[0].length);
      // A marker alone on its line ("> ℹ️ Note:") leaves only the quote marker: drop it.
      if (line.trim() === '' || /^\s*>\s*$/.test(line)) continue;
    }
    out.push(line);
  }
  return out.join('\n');
}
