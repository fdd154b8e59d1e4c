import { Worker } from 'node:worker_threads';
import type { LoadedDocument, SkippedItem } from '@kbqa/core';

export interface PdfLimits {
  /** Pages read from one PDF; the rest are reported skipped with LIMIT. Default 1,000. */
  maxPages: number;
}

export const DEFAULT_MAX_PAGES = 1000;

/** What the reading thread sends back for one PDF. */
type PdfReply =
  | { id: number; failed: { name?: string; message: string } }
  | {
      id: number;
      title?: string;
      numPages: number;
      pages: Array<{ items: Array<{ str: string; hasEOL?: boolean }> } | { error: string }>;
    };

const PDFJS_MODULE = 'pdfjs-dist/legacy/build/pdf.mjs';

/**
 * The thread that reads PDFs. pdfjs-dist is an ES module and its parsing is synchronous work that
 * can take seconds on a large file: a worker thread keeps it off the service's event loop, and
 * loads the module with Node's own loader (a test runner's module sandbox cannot break it). The
 * code is plain JavaScript evaluated in the thread, so it runs the same from sources and builds.
 */
const WORKER_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
const loaded = import(pathToFileURL(workerData.module).href);
parentPort.on('message', async ({ id, data, maxPages }) => {
  let lib;
  try {
    lib = await loaded;
  } catch (e) {
    parentPort.postMessage({ id, unavailable: String((e && e.message) || e) });
    return;
  }
  const task = lib.getDocument({ data, isEvalSupported: false, disableFontFace: true,
    useSystemFonts: false, stopAtErrors: false, verbosity: 0 });
  let pdf;
  try {
    pdf = await task.promise;
  } catch (e) {
    await task.destroy().catch(() => undefined);
    parentPort.postMessage({ id, failed: { name: e && e.name, message: String((e && e.message) || e) } });
    return;
  }
  try {
    let title;
    try {
      const info = (await pdf.getMetadata()).info;
      if (info && typeof info.Title === 'string') title = info.Title;
    } catch {}
    const pages = [];
    for (let n = 1; n <= Math.min(pdf.numPages, maxPages); n++) {
      try {
        const page = await pdf.getPage(n);
        const content = await page.getTextContent();
        pages.push({ items: content.items.filter((i) => 'str' in i).map((i) => ({ str: i.str, hasEOL: i.hasEOL })) });
        page.cleanup();
      } catch (e) {
        pages.push({ error: String((e && e.message) || e) });
      }
    }
    parentPort.postMessage({ id, title, numPages: pdf.numPages, pages });
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
});
`;

let reader:
  { worker: Worker; waiting: Map<number, (reply: PdfReply | { unavailable: string }) => void> } | undefined;
let nextId = 1;

/** Reads one PDF in the reading thread, started on the first PDF and left idle (unref) after. */
async function readInThread(data: Buffer, maxPages: number): Promise<PdfReply | { unavailable: string }> {
  if (!reader) {
    // The single executable's build rewrites this call to pdf.mjs in its extracted cache.
    const module = require.resolve(PDFJS_MODULE);
    const worker = new Worker(WORKER_CODE, { eval: true, workerData: { module } });
    const waiting = new Map<number, (reply: PdfReply | { unavailable: string }) => void>();
    const current = { worker, waiting };
    worker.on('message', (reply: PdfReply | { id: number; unavailable: string }) => {
      const done = waiting.get(reply.id);
      waiting.delete(reply.id);
      if (waiting.size === 0) worker.unref();
      done?.(reply);
    });
    const fail = (e: unknown): void => {
      if (reader === current) reader = undefined;
      for (const done of waiting.values()) done({ unavailable: `the PDF reader stopped: ${String(e)}` });
      waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(`exit code ${code}`));
    reader = current;
  }
  const { worker, waiting } = reader;
  const id = nextId++;
  // A copy goes to the thread, so the caller's bytes stay intact.
  const bytes = new Uint8Array(data);
  const reply = new Promise<PdfReply | { unavailable: string }>((resolve) => waiting.set(id, resolve));
  worker.ref();
  worker.postMessage({ id, data: bytes, maxPages }, [bytes.buffer]);
  return reply;
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
  let reply: PdfReply | { unavailable: string };
  try {
    reply = await readInThread(data, maxPages);
  } catch (e) {
    reply = { unavailable: (e as Error).message ?? String(e) };
  }
  if ('unavailable' in reply) {
    return skipped(name, 'UNSUPPORTED', `PDF reading is not available here: ${reply.unavailable}`);
  }
  if ('failed' in reply) {
    if (reply.failed.name === 'PasswordException') {
      return skipped(name, 'ENCRYPTED', 'the PDF is encrypted with a password; upload it without one');
    }
    return skipped(name, 'CORRUPT', `corrupt or unreadable PDF: ${reply.failed.message}`);
  }
  const title = reply.title?.trim() || name;
  const documents: LoadedDocument[] = [];
  const items: SkippedItem[] = [];
  reply.pages.forEach((page, i) => {
    const n = i + 1;
    if ('error' in page) {
      items.push({
        url: `${name}#page=${n}`,
        code: 'CORRUPT',
        reason: `page ${n} could not be read: ${page.error}`,
      });
      return;
    }
    const text = pageText(page.items);
    if (text) documents.push({ source: name, link: `${name}#page=${n}`, title, content: text });
  });
  if (reply.numPages > maxPages) {
    items.push({
      url: `${name}#page=${maxPages + 1}`,
      code: 'LIMIT',
      reason: `only the first ${maxPages} of ${reply.numPages} pages were read (page limit)`,
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
}

function skipped(
  name: string,
  code: SkippedItem['code'],
  reason: string,
): { documents: LoadedDocument[]; skipped: SkippedItem[] } {
  return { documents: [], skipped: [{ url: name, code, reason }] };
}

/** The page's text items in reading order, a line break where pdfjs saw one. */
function pageText(items: ReadonlyArray<{ str: string; hasEOL?: boolean }>): string {
  let out = '';
  for (const { str, hasEOL } of items) {
    out += str;
    // pdfjs gives the spaces between words as items of their own; only line ends are flags.
    if (hasEOL) out += '\n';
  }
  return out
    .replace(/[ \t]+\n/g, '\n')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}
