import type { AnswerSource } from '@kbqa/core';
import { announces } from '../answer-hygiene';
import { containsIdentifier } from '../terms.util';
import { NAME_HEADING } from './neighbours';
import type { ExtractiveProfile } from './profile';
import { follows } from './select';
import type { Candidate } from './types';

/** What the extractive generator answers when the sources do not cover the question. */
export const NOT_COVERED_ANSWER = "I couldn't find this in the documentation.";

/** Opens the list of closest pages that follows {@link NOT_COVERED_ANSWER} when there are sources. */
export const SEE_ALSO = 'You may want to read:';

/** {@link NOT_COVERED_ANSWER}, then the closest pages (sources in retrieval order, one per link). */
export function notCovered(sources: AnswerSource[], profile: ExtractiveProfile): string[] {
  const seen = new Set<string>();
  const pages: string[] = [];
  for (const s of sources) {
    if (!s.link || seen.has(s.link) || pages.length >= profile.seeAlsoPages) continue;
    seen.add(s.link);
    const title = (s.title.trim() || s.link).replace(/[[\]]/g, '');
    pages.push(`[${title}](${s.link})`);
  }
  if (pages.length === 0) return [NOT_COVERED_ANSWER];
  return [NOT_COVERED_ANSWER, `\n\n${SEE_ALSO} ${pages.join(', ')}.`];
}

/** Prose streams a few words at a time; a code block goes out whole. */
export function streamPieces(text: string, wordsPerPiece: number): string[] {
  if (text.includes('```') || text.includes('~~~')) return [text];
  const words = text.match(/\s*\S+/g) ?? [text];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerPiece) out.push(words.slice(i, i + wordsPerPiece).join(''));
  const rest = text.slice(out.join('').length);
  if (rest) out.push(rest);
  return out;
}

/** Whether `item` follows `previous` in its list: the introduction or the item before, or the "more" mark. */
function continuesList(previous: Candidate, item: Candidate): boolean {
  const next = item.unit.position === previous.unit.position + 1;
  const more = item.unit.text === '…' && item.unit.position === previous.unit.position;
  return next || more;
}

/** The chosen units as the answer's pieces: sentences cited, each source's paragraph together. */
export function render(chosen: Candidate[]): string[] {
  const pieces: string[] = [];
  const citedSources = new Set(chosen.filter((c) => c.unit.kind === 'sentence').map((c) => c.sourceIndex));
  const named = new Set<string>();
  const listLines = new Set<Candidate>();
  chosen.forEach((c, i) => {
    const previous = chosen[i - 1];
    const next = chosen[i + 1];
    if (c.unit.kind === 'code') {
      const intro = citedSources.has(c.sourceIndex) ? '' : `Example [${c.source.n}]:\n\n`;
      pieces.push(`${pieces.length > 0 ? '\n\n' : ''}${intro}${c.unit.text}`);
      return;
    }
    // Only an item right after its list's introduction or the item before it is a list line; one
    // chosen on its own reads as a sentence.
    const listed = previous !== undefined && listLines.has(previous);
    if (
      c.unit.listItem &&
      previous !== undefined &&
      previous.sourceIndex === c.sourceIndex &&
      (listed || announces(previous.unit.text)) &&
      continuesList(previous, c)
    ) {
      // An item shown after the sentence announcing its list: a list line, cited by that sentence.
      pieces.push(`${listed ? '\n' : '\n\n'}- ${c.unit.text}`);
      listLines.add(c);
      return;
    }
    // A sentence after a list line starts a paragraph: run on, it would read as part of the item.
    const sameParagraph =
      previous !== undefined &&
      previous.unit.kind === 'sentence' &&
      previous.sourceIndex === c.sourceIndex &&
      !listLines.has(previous);
    const separator = pieces.length === 0 ? '' : sameParagraph ? ' ' : '\n\n';
    const introducesNext =
      next !== undefined && (next.unit.kind === 'code' || next.unit.listItem === true) && follows(c, next);
    // The name goes in front once per section: later sentences of that section continue it.
    const section = `${c.sourceIndex}\u0000${c.unit.heading}`;
    let text = c.unit.text;
    // The first sentence quoted from a section says the name, labelled or in its own words
    // ("You can use `ignoreDuplicateSlashes` option …"): the next one continues it unlabelled.
    if (!named.has(section)) {
      text = labelled(c);
      named.add(section);
    }
    pieces.push(separator + cite(text, c.source.n, introducesNext));
  });
  return pieces;
}

/**
 * An option's or method's description often leaves out its name, which only its heading says
 * ("Automatically creates a sibling HEAD route …" under `exposeHeadRoutes`): quoted alone, it
 * would not tell the reader what to set. The first sentence quoted from such a section gets the
 * name in front, as reference pages list them ("`exposeHeadRoutes`: Automatically creates …"),
 * wherever it stands in the section: a later one ("If not, `ready` will complete with an error")
 * needs the name as much.
 */
function labelled(c: Candidate): string {
  const text = c.unit.text;
  const m = NAME_HEADING.exec(c.unit.heading.trim());
  const name = m?.[1] ?? proseHeadingName(c);
  // A one-word heading in prose ("Usage", "Example") is a title, not a name.
  if (!name || !(/`/.test(c.unit.heading) || /[a-z][A-Z]|\.\w|\(/.test(name))) return text;
  const id = name.replace(/\(.*\)$/, '').toLowerCase();
  if (containsIdentifier(c.lower, id)) return text;
  return `\`${name}\`: ${text}`;
}

/**
 * The one API a prose heading is about ("Add `reply.trailers` methods"), for a sentence under it
 * that names no code ("Fastify now supports the HTTP Trailer response headers"): quoted alone,
 * it would not say what to call. A heading naming two or none, or a sentence with code of its
 * own, gets no label.
 */
function proseHeadingName(c: Candidate): string | undefined {
  if (/`/.test(c.unit.text)) return undefined;
  const names = [...c.unit.heading.matchAll(/`([A-Za-z_$][\w$]*\.[A-Za-z_$][\w$.]*(?:\([^()]*\))?)`/g)];
  return names.length === 1 ? names[0]?.[1] : undefined;
}

/**
 * A curated answer verbatim, its citation after it: on a line of its own after a code block or
 * list, else after the final full stop (the answer must start with exactly what was taught).
 */
export function citeCurated(source: AnswerSource): string {
  const text = source.content.trim();
  const blockEnd = /(?:```|~~~)$/.test(text) || /\n\s*(?:[-*+]|\d+\.)\s[^\n]*$/.test(text);
  return `${text}${blockEnd ? '\n\n' : ' '}[${source.n}]`;
}

/** Puts ` [n]` before the sentence's final punctuation ("Sets the status code [1]."), adding a full stop when there is none. */
export function cite(sentence: string, n: number, introducesCode = false): string {
  let text = sentence.trim();
  // A sentence introducing an example that is not shown should not end in a colon.
  if (text.endsWith(':') && !introducesCode) text = `${text.slice(0, -1)}.`;
  const end = /[.!?:;]+$/.exec(text);
  if (end) return `${text.slice(0, end.index)} [${n}]${end[0]}`;
  // A list item or table row without a full stop still reads as a sentence in the answer.
  return `${text} [${n}].`;
}
