import { readFile } from 'node:fs/promises';
import {
  type LoadContext,
  type LoadedDocument,
  type LoadRequest,
  type PageVersion,
  type SourceLoader,
  throwIfAborted,
} from '@kbqa/core';
import { extractFile, FILE_EXTENSIONS } from '@kbqa/loader-files';
import { resolveFolder } from './folder-path';
import { fileSource, isReadable, walkFolder } from './walk';

export interface FolderLoaderOptions {
  /** Folders under which an index may watch (KBQA_FOLDER_ROOTS); none allows nothing. */
  roots: readonly string[];
  /** Pages read from one PDF; the rest are skipped with LIMIT. Default 1,000. */
  maxPdfPages?: number;
  /** Bytes of one file; a larger one is skipped with TOO_LARGE. Default 20 MB. */
  maxFileBytes?: number;
}

const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;
const DEFAULT_MAX_PDF_PAGES = 1000;

/**
 * Ingests a folder of the server's file system: every file of a format `@kbqa/loader-files`
 * reads (PDF, Word .docx, Markdown, HTML, plain text), one source per file, known by its
 * `file://` URL (a PDF's pages link `#page=N`). The request's `url` is the folder's absolute path,
 * which must lie under one of `roots`. During a sync a file whose modification time, size and
 * inode are the stored ones is reported unchanged without being read.
 */
export class FolderLoader implements SourceLoader {
  readonly type = 'folder' as const;
  private readonly roots: readonly string[];
  private readonly maxPdfPages: number;
  private readonly maxFileBytes: number;

  constructor(options: FolderLoaderOptions) {
    this.roots = options.roots;
    this.maxPdfPages = options.maxPdfPages ?? DEFAULT_MAX_PDF_PAGES;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  }

  validate(request: LoadRequest): void {
    resolveFolder(request.url, this.roots);
  }

  async *load(request: LoadRequest, context: LoadContext): AsyncIterable<LoadedDocument> {
    const { signal } = context;
    throwIfAborted(signal);
    const walk = await walkFolder(request.url, this.roots, signal);
    for (const item of walk.skipped) context.skipped?.(item);
    const total = walk.files.length;
    context.progress({ step: 'SCRAPING', current: 0, total, message: walk.folder });
    for (const [i, file] of walk.files.entries()) {
      throwIfAborted(signal);
      const source = fileSource(file.path);
      const version: PageVersion = { file: { mtimeMs: file.mtimeMs, size: file.size, ino: file.ino } };
      if (!isReadable(file.path)) {
        context.skipped?.({
          url: source,
          code: 'UNSUPPORTED',
          reason: `not a format kbqa reads (${FILE_EXTENSIONS.join(', ')})`,
        });
      } else if (file.size > this.maxFileBytes) {
        context.skipped?.({
          url: source,
          code: 'TOO_LARGE',
          reason: `${file.size} bytes, over the limit of ${this.maxFileBytes}`,
        });
      } else if (sameFile(context.known?.(source)?.version, version)) {
        context.unchanged?.(source);
      } else {
        yield* this.read(file.path, file.rel, source, version, context);
      }
      context.progress({ step: 'SCRAPING', current: i + 1, total, message: file.rel });
    }
  }

  /** The documents of one file (a PDF's pages), each carrying the file's version. */
  private async *read(
    path: string,
    rel: string,
    source: string,
    version: PageVersion,
    context: LoadContext,
  ): AsyncIterable<LoadedDocument> {
    let data: Buffer;
    try {
      data = await readFile(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // Deleted since the walk: it is simply not there (a later sync sees it gone).
      if (code === 'ENOENT') return;
      context.skipped?.({ url: source, code: 'FAILED', reason: e instanceof Error ? e.message : String(e) });
      return;
    }
    const outcome = await extractFile({ name: source, data }, { maxPages: this.maxPdfPages });
    for (const item of outcome.skipped) context.skipped?.(item);
    for (const doc of outcome.documents) {
      // A file without a title of its own is named by its path in the folder, not its URL.
      yield { ...doc, title: !doc.title || doc.title === source ? rel : doc.title, version };
    }
  }
}

function sameFile(known: PageVersion | undefined, now: PageVersion): boolean {
  const a = known?.file;
  const b = now.file;
  return (
    a !== undefined && b !== undefined && a.mtimeMs === b.mtimeMs && a.size === b.size && a.ino === b.ino
  );
}
