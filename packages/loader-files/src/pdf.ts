import type { LoadedDocument, SkippedItem } from '@kbqa/core';

export interface PdfLimits {
  /** Pages read from one PDF; the rest are reported skipped with LIMIT. Default 1,000. */
  maxPages: number;
}

export const DEFAULT_MAX_PAGES = 1000;

/** The part of pdfjs-dist's API used here (its own types resolve only from ES modules). */
interface Pdfjs {
  getDocument(source: {
    data: Uint8Array;
    isEvalSupported: boolean;
    disableFontFace: boolean;
    useSystemFonts: boolean;
    stopAtErrors: boolean;
    verbosity: number;
  }): { promise: Promise<PdfDocument>; destroy(): Promise<void> };
}
interface PdfDocument {
  numPages: number;
  getMetadata(): Promise<{ info: unknown }>;
  getPage(n: number): Promise<{ getTextContent(): Promise<{ items: unknown[] }>; cleanup(): unknown }>;
  destroy(): Promise<void>;
}

const PDFJS_MODULE = 'pdfjs-dist/legacy/build/pdf.mjs';
let pdfjs: Promise<Pdfjs> | undefined;

/**
 * pdfjs-dist is an ES module, loaded on the first PDF only. The import is built at run time so
 * that no compiler turns it into a require (which cannot load an ES module): tsc keeps a plain
 * `import()` in CommonJS output, but jest's ts-jest transform does not.
 */
// eslint-disable-next-line @typescript-eslint/no-implied-eval
const importEsm = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<unknown>;

function loadPdfjs(): Promise<Pdfjs> {
  pdfjs ??= importEsm(PDFJS_MODULE) as Promise<Pdfjs>;
  return pdfjs;
}

/**
 * One document per page that has text, linked `name#page=N` (the fragment PDF viewers open a page
 * at). A PDF without any text layer (scanned), encrypted or corrupt becomes a skipped item.
 */
export async function readPdf(
  name: string,
  data: Buffer,
  limits: Partial<PdfLimits> = {},
): Promise<{ documents: LoadedDocument[]; skipped: SkippedItem[] }> {
  const maxPages = Math.max(1, Math.floor(limits.maxPages ?? DEFAULT_MAX_PAGES));
  let lib: Pdfjs;
  try {
    lib = await loadPdfjs();
  } catch (e) {
    // A build without pdfjs-dist (the single executable bundles no ES module loaded at run time).
    pdfjs = undefined;
    return skipped(
      name,
      'UNSUPPORTED',
      `PDF reading is not available here: ${(e as Error).message ?? String(e)}`,
    );
  }
  const task = lib.getDocument({
    // pdfjs may detach the buffer it is given: a copy keeps the caller's bytes intact.
    data: new Uint8Array(data),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  let pdf: PdfDocument;
  try {
    pdf = await task.promise;
  } catch (e) {
    await task.destroy().catch(() => undefined);
    const err = e as { name?: string; message?: string };
    if (err.name === 'PasswordException') {
      return skipped(name, 'ENCRYPTED', 'the PDF is encrypted with a password; upload it without one');
    }
    return skipped(name, 'CORRUPT', `corrupt or unreadable PDF: ${err.message ?? String(e)}`);
  }
  try {
    let title = name;
    try {
      const info = (await pdf.getMetadata()).info as { Title?: unknown } | undefined;
      if (typeof info?.Title === 'string' && info.Title.trim()) title = info.Title.trim();
    } catch {
      // A broken Info dictionary leaves the file name as title.
    }
    const documents: LoadedDocument[] = [];
    const items: SkippedItem[] = [];
    const pages = Math.min(pdf.numPages, maxPages);
    for (let n = 1; n <= pages; n++) {
      let text: string;
      try {
        const page = await pdf.getPage(n);
        text = pageText((await page.getTextContent()).items);
        page.cleanup();
      } catch (e) {
        items.push({
          url: `${name}#page=${n}`,
          code: 'CORRUPT',
          reason: `page ${n} could not be read: ${(e as Error).message ?? String(e)}`,
        });
        continue;
      }
      if (!text) continue;
      const link = `${name}#page=${n}`;
      documents.push({ source: name, link, title, content: text });
    }
    if (pdf.numPages > maxPages) {
      items.push({
        url: `${name}#page=${maxPages + 1}`,
        code: 'LIMIT',
        reason: `only the first ${maxPages} of ${pdf.numPages} pages were read (page limit)`,
      });
    }
    if (documents.length === 0 && !items.some((i) => i.code === 'CORRUPT')) {
      return skipped(
        name,
        'NO_CONTENT',
        'the PDF has no text layer (a scanned document? kbqa does not read text from images)',
      );
    }
    return { documents, skipped: items };
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}

function skipped(
  name: string,
  code: SkippedItem['code'],
  reason: string,
): { documents: LoadedDocument[]; skipped: SkippedItem[] } {
  return { documents: [], skipped: [{ url: name, code, reason }] };
}

/** The page's text items in reading order, a line break where pdfjs saw one. */
function pageText(items: ReadonlyArray<unknown>): string {
  let out = '';
  for (const item of items) {
    if (typeof item !== 'object' || item === null || !('str' in item)) continue;
    const { str, hasEOL } = item as { str: string; hasEOL?: boolean };
    out += str;
    // pdfjs gives the spaces between words as items of their own; only line ends are flags.
    if (hasEOL) out += '\n';
  }
  return out
    .replace(/[ \t]+\n/g, '\n')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}
