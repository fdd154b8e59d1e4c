import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SkipCode } from '@kbqa/core';
import type { Markup } from './markup';

/** Folders that hold dependencies, build output or tool state rather than written documentation. */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set([
  'node_modules', 'bower_components', 'jspm_packages', 'vendor', 'vendors', 'third_party', 'third-party',
  'thirdparty', 'external', 'dist', 'build', 'out', 'target', 'coverage', 'htmlcov', '.next', '.nuxt',
  '.svelte-kit', '.docusaurus', '.vuepress', '.turbo', '.cache', '.parcel-cache', '.git', '.hg', '.svn',
  '__pycache__', '.venv', 'venv', '.tox', '.mypy_cache', '.pytest_cache', 'site-packages', '_build',
  '.yarn', '.pnpm-store', 'pods', 'carthage', '.gradle', '.idea', '.vscode', 'generated', '__generated__',
]); // prettier-ignore

const EXTENSIONS: Readonly<Record<string, Markup>> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdown': 'markdown',
  '.mdx': 'mdx',
  '.rst': 'rst',
  '.adoc': 'asciidoc',
  '.asciidoc': 'asciidoc',
  '.asc': 'asciidoc',
  '.txt': 'text',
};

/** Text files with a .txt name that are build or dependency input, not documentation. */
const NOT_DOCS =
  /^(requirements.*|constraints.*|cmakelists|robots|dependency_links|sources|top_level)\.txt$/i;

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot).toLowerCase() : '';
}

/** The markup of a documentation file, or undefined when the file is not documentation. */
export function markupOf(name: string): Markup | undefined {
  const byExtension = EXTENSIONS[extensionOf(name)];
  if (byExtension) return byExtension === 'text' && NOT_DOCS.test(name) ? undefined : byExtension;
  // READMEs count at any depth and in any form (README, README.en, readme.html...).
  if (/^readme(\.[^.]+)?$/i.test(name)) return 'text';
  return undefined;
}

export interface DocFile {
  /** Path relative to the repository root, `/`-separated. */
  path: string;
  absolute: string;
  markup: Markup;
}

/**
 * Lists documentation files under `dir` in a stable order. Skipped folders, hidden folders (but
 * `.github`) and symbolic links are never entered; symlinked files are reported, not read.
 */
export async function listDocFiles(
  dir: string,
  relative: string,
  onSkipped: (path: string, code: SkipCode, reason: string) => void,
): Promise<DocFile[]> {
  const files: DocFile[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
    const absolute = join(dir, entry.name);
    if (entry.isDirectory()) {
      const lower = entry.name.toLowerCase();
      if (SKIPPED_FOLDERS.has(lower) || (lower.startsWith('.') && lower !== '.github')) continue;
      files.push(...(await listDocFiles(absolute, path, onSkipped)));
      continue;
    }
    const markup = markupOf(entry.name);
    if (!markup) continue;
    if (entry.isSymbolicLink()) onSkipped(path, 'FILTERED', 'symbolic link');
    else if (entry.isFile()) files.push({ path, absolute, markup });
  }
  return files;
}
