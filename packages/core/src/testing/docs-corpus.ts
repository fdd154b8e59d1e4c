import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The documentation corpus every package's tests read: `fixtures/docs-corpus/` at the repository root,
 * the docs of Tidepool, a fictional HTTP framework written for these tests (see `fixtures/README.md`).
 * It lives in the repository so that a plain clone passes its tests. Four levels up from both
 * `src/testing` and `dist/testing` is the repository root.
 */
export const DOCS_CORPUS_DIR = join(__dirname, '..', '..', '..', '..', 'fixtures', 'docs-corpus');

/** The text of one corpus page, by its path relative to the corpus, e.g. `reference/hooks.md`. */
export function readDocsCorpusFile(file: string): string {
  return readFileSync(join(DOCS_CORPUS_DIR, file), 'utf8');
}
