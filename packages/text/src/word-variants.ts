/**
 * Words that documentation and its readers use for the same thing: an abbreviation and its long
 * form ("param" / "parameter", "config" / "configuration"), a noun and the name of the thing
 * doing it ("log" / "logger"), a protocol and its secure layer ("https" / "tls"). A reader asks
 * "how do I see the log lines?" of a page that says "logger"; no stemmer joins these.
 *
 * Kept small and generic on purpose: every group must hold on any software documentation, not
 * on one site's vocabulary. Search counts a variant as the question's word in a passage's
 * coverage (store-sqlite `queryStems`), and the answer generator reads them as one term.
 */
export const WORD_VARIANT_GROUPS: readonly (readonly string[])[] = [
  ['log', 'logs', 'logger', 'loggers', 'logging'],
  ['tls', 'ssl', 'https'],
  ['param', 'params', 'parameter', 'parameters'],
  ['config', 'configs', 'configuration', 'configurations'],
  ['env', 'environment', 'environments'],
  ['auth', 'authentication'],
  ['db', 'database', 'databases'],
  ['dir', 'dirs', 'directory', 'directories'],
  ['arg', 'args', 'argument', 'arguments'],
  ['repo', 'repos', 'repository', 'repositories'],
];

const VARIANTS = new Map<string, readonly string[]>();
for (const group of WORD_VARIANT_GROUPS) for (const w of group) VARIANTS.set(w, group);

/** The other words of `word`'s group (lowercase in, lowercase out), none when it has no group. */
export function wordVariants(word: string): readonly string[] {
  const group = VARIANTS.get(word.toLowerCase());
  return group ? group.filter((w) => w !== word.toLowerCase()) : [];
}

/**
 * The first word of `word`'s group (lowercase), undefined when it has no group. Matching goes by
 * whole words, before any stemming: "https" stems to "http", which must not join the group.
 */
export function variantHead(word: string): string | undefined {
  return VARIANTS.get(word.toLowerCase())?.[0];
}
