/**
 * Similarity of short texts (questions) by their content words: lowercased, stop words of
 * @kbqa/text removed, lightly stemmed ({@link terms}), so "How do I reset my password?" and
 * "resetting passwords" have the same words {reset, password}.
 */
import { terms } from './terms.util';

/** The distinct content words of a text. */
export function contentTerms(text: string): Set<string> {
  return new Set(terms(text));
}

function shared(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let n = 0;
  for (const t of a) if (b.has(t)) n++;
  return n;
}

/** |A ∩ B| / |A ∪ B|; 0 when both are empty. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const common = shared(a, b);
  const union = a.size + b.size - common;
  return union === 0 ? 0 : common / union;
}

/**
 * |A ∩ B| / max(|A|, |B|): the share of the longer text's content words that the other has too.
 * Stricter than Dice on a short question against a long one: "password?" against "reset password"
 * is 0.5, and so is "reset password for admin accounts".
 */
export function termOverlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const longest = Math.max(a.size, b.size);
  return longest === 0 ? 0 : shared(a, b) / longest;
}
