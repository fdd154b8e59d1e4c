/**
 * Text fragments for citations (URL Fragment Text Directives, `#:~:text=start,end`): a link that
 * makes the reader's browser scroll to the cited passage and highlight it. The passage is the
 * answer's words before a marker; the fragment quotes the sentence of the cited chunk that says
 * them, since the page shows the chunk's words, not the answer's. Browsers without text fragments
 * ignore the directive and open the page at its top.
 *
 * Separate from citations.ts (`@kbqa/text/text-fragment`): the widget loads this part with its
 * Markdown module, once a reader opens it, not on every page.
 */
import { splitMarkdownUnits, cleanInline } from './markdown-units';
import { isStopWord } from './stop-words';

/** A sentence of at most this many words is quoted whole; a longer one by its first and last words. */
const WHOLE_WORDS = 10;
const EDGE_WORDS = 5;
/** Share of the passage's content words a sentence must hold to be the one cited. */
const MIN_COVERAGE = 0.6;

/** A line of Markdown as a reader sees its text: no markers, block marks, links, emphasis or code ticks. */
export function plainText(markdown: string): string {
  return cleanInline(
    markdown
      .replace(/[ \t]*\[\d{1,4}(?:[ \t]*,[ \t]*\d{1,4})*\]/g, '')
      .replace(/^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d{1,3}[.)]\s+)/, ''),
  )
    .replace(/`+/g, '')
    .replace(/(^|[^\p{L}\p{N}])(\*{1,3}|_{1,3})(?=\S)|(?<=\S)(\*{1,3}|_{1,3})(?![\p{L}\p{N}])/gu, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A word without its common English endings: "jobs" "job", "failed" "fail", "retries" "retri". */
function stem(word: string): string {
  const m = /^(.{3,}?)(?:ing|ed|es|s|ly)$/.exec(word);
  return m?.[1] ?? word;
}

/**
 * Whether two stems are one word in other forms: equal, or sharing a start of four letters or
 * more that covers most of the shorter ("exponential" "exponentially", "fail" "failure").
 */
function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const shorter = Math.min(a.length, b.length);
  if (shorter < 4) return false;
  let common = 0;
  while (common < shorter && a[common] === b[common]) common++;
  return common >= 4 && common >= 0.7 * shorter;
}

/**
 * The sentence of `content` (a chunk's Markdown) that `passage` cites, as the page shows it: the
 * one holding the passage's words in order, else the one holding the largest share of its content
 * words (at least {@link MIN_COVERAGE}, two words or more), the shorter on a tie. Undefined when
 * no sentence says enough of it: a fragment that matches nothing only adds noise to the link.
 */
export function citedSentence(passage: string, content: string): string | undefined {
  const said = words(plainText(passage));
  const key = [...new Set(said.filter((w) => !isStopWord(w)).map(stem))];
  if (said.length < 2 || key.length === 0) return undefined;
  const phrase = ` ${said.join(' ')} `;
  let best: { text: string; score: number } | undefined;
  for (const unit of splitMarkdownUnits(content)) {
    if (unit.kind !== 'sentence') continue;
    const text = plainText(unit.text);
    const own = words(text);
    if (own.length === 0) continue;
    const stems = [...new Set(own.map(stem))];
    const shared = key.filter((w) => stems.some((s) => sameWord(w, s))).length;
    const coverage = shared / key.length;
    // Quoted word for word: the extractive answers quote sentences, then cut their punctuation.
    const quoted = ` ${own.join(' ')} `.includes(phrase);
    if (!quoted && (coverage < MIN_COVERAGE || shared < Math.min(2, key.length))) continue;
    const score = (quoted ? 2 : coverage) + shared / own.length / 10;
    if (!best || score > best.score) best = { text, score };
  }
  return best?.text;
}

/**
 * The text directive (`text=…`, without `#:~:`) that finds `sentence` on its page: the whole
 * sentence when short, else its first and last words as start and end, so that markup the
 * page renders differently in between cannot break the match. Edge punctuation is left out
 * (matches are on word boundaries); `-`, `,` and `&` are percent-encoded with everything outside
 * the directive's plain characters.
 */
export function textDirective(sentence: string): string | undefined {
  const all = sentence.split(/\s+/).filter(Boolean);
  const trim = (terms: string[]) =>
    terms
      .join(' ')
      .replace(/^[^\p{L}\p{N}]+/u, '')
      .replace(/[^\p{L}\p{N}]+$/u, '');
  const parts =
    all.length <= WHOLE_WORDS ? [trim(all)] : [trim(all.slice(0, EDGE_WORDS)), trim(all.slice(-EDGE_WORDS))];
  if (parts.some((p) => p === '')) return undefined;
  return `text=${parts.map(encodeDirectiveText).join(',')}`;
}

/**
 * `address` (a cited page) at the sentence of `content` (its chunk) that `passage` (the answer's
 * words, Markdown) cites; `address` itself when there is no such sentence.
 */
export function fragmentHref(address: string, passage: string, content: string | undefined): string {
  const sentence = content ? citedSentence(passage, content) : undefined;
  const directive = sentence ? textDirective(sentence) : undefined;
  return directive ? withTextDirective(address, directive) : address;
}

/** Percent-encodes a directive's text: encodeURIComponent leaves `-` as is, which the syntax reserves. */
export function encodeDirectiveText(text: string): string {
  return encodeURIComponent(text).replace(/-/g, '%2D');
}

/**
 * `link` with `directive` in its fragment directive: after the element fragment it may have
 * (`#section:~:text=…`), in place of a fragment directive it had.
 */
export function withTextDirective(link: string, directive: string): string {
  const hash = link.indexOf('#');
  if (hash === -1) return `${link}#:~:${directive}`;
  const delimiter = link.indexOf(':~:', hash);
  return `${delimiter === -1 ? link : link.slice(0, delimiter)}:~:${directive}`;
}
