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
/**
 * A script or style element opening a line outside code (VitePress and MDX pages import their
 * components so). Only at the start of a line: prose may name a `<script>` tag in backticks.
 */
const SCRIPT_OPEN = /^\s*<(script|style)\b[^>]*>/i;
/**
 * A line made only of a self-closing component (`<svg-image :svg="x" />`, `<YouTube id="x" />`): a
 * custom element (a hyphen in its name) or a capitalized one, which a site renders and a reader
 * never sees as text.
 */
const COMPONENT_LINE = /^\s*<(?:[a-z][\w]*-[\w-]*|[A-Z][\w.]*)(?:\s[^<>]*)?\/>\s*$/;
/** Comments in code that steer a docs site's highlighter or a linter, not the reader. */
const CODE_DIRECTIVE =
  /^\s*(?:\/\/|#|--|<!--|\{?\/\*)\s*(?:highlight-(?:next-line|start|end|line)|prettier-ignore|eslint-(?:disable|enable)[\w-]*|markdownlint-[\w-]+|#?(?:end)?region\b|\[!code\b|snippet-(?:start|end)|docs?-(?:start|end)|tabs?:|title[=:])/i;
const TRAILING_CODE_DIRECTIVE = /\s*(?:\/\/|#)\s*(?:highlight-line|\[!code [^\]]*\])\s*$/i;

/**
 * Removes markup that is not prose from markdown, line by line in one pass: HTML comments (also
 * across lines), `<script>` and `<style>` elements (also across lines), lines holding only a
 * self-closing component, admonition markers (`> ℹ️ Note:`, `**Warning:**`, `> [!NOTE]`, `:::tip`, `!!! note`)
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
  /** The element (`script`, `style`) whose closing tag ends the lines being dropped. */
  let inElement: string | undefined;
  for (const raw of lines) {
    let line = raw;
    if (inElement !== undefined) {
      const close = new RegExp(`</${inElement}\\s*>`, 'i').exec(line);
      if (!close) continue;
      inElement = undefined;
      line = line.slice(close.index + close[0].length);
      if (line.trim() === '') continue;
    }
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
    const element = SCRIPT_OPEN.exec(line);
    if (element) {
      const tag = element[1]!.toLowerCase();
      const rest = line.slice(element.index + element[0].length);
      const close = new RegExp(`</${tag}\\s*>`, 'i').exec(rest);
      if (close) line = line.slice(0, element.index) + rest.slice(close.index + close[0].length);
      else {
        inElement = tag;
        line = line.slice(0, element.index);
      }
      if (line.trim() === '') continue;
    }
    if (COMPONENT_LINE.test(line)) continue;
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
