import { matchTerms } from '@kbqa/ranking';

/**
 * Text as both sides of the search see it: diacritics removed and every run of characters other
 * than letters and digits turned into one space. Postgres's parser would keep `reply.send`,
 * `HTTP/2` or `fastify-plugin` as single host, file or compound tokens, so a question naming
 * `send` would miss them; FTS5's unicode61 tokenizer, which the SQLite store uses, splits them
 * into words, and so does this.
 */
export function searchText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * A `to_tsquery` expression OR-ing the terms of {@link matchTerms} (quoted words; a compound
 * identifier as a phrase of its parts). Every word is quoted, and searchText leaves only letters
 * and digits, so nothing a user types is read as tsquery syntax. Undefined without a term.
 */
export function tsQueryOf(terms: string[]): string | undefined {
  const parts = terms
    .map((t) =>
      searchText(t)
        .split(' ')
        .filter((w) => w !== '')
        .map((w) => `'${w}'`)
        .join(' <-> '),
    )
    .filter((p) => p !== '');
  return parts.length > 0 ? parts.map((p) => `(${p})`).join(' | ') : undefined;
}

/** The tsquery of a question's own terms, as the SQLite store would match them. */
export function questionTsQuery(text: string): string | undefined {
  return tsQueryOf(matchTerms(text));
}
