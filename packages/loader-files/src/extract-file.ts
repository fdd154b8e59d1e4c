import { extname } from 'node:path';
import type { DocumentMetadata, LoadedDocument, SkipCode, SkippedItem } from '@kbqa/core';
import { extractContent } from '@kbqa/html';
import { readPdf, type PdfLimits } from './pdf';

/** One uploaded file: its name within the project (its source) and its bytes. */
export interface FileInput {
  name: string;
  data: Buffer;
  /** Added to every document of the file, for the chat's `where` filter. */
  metadata?: DocumentMetadata;
}

export type FileFormat = 'pdf' | 'docx' | 'markdown' | 'html' | 'text';

export type FileExtractOptions = Partial<PdfLimits>;

/**
 * What a file became: its documents (one per PDF page, else one), and what was passed over (a
 * file that could not be read at all, or PDF pages beyond the page limit).
 */
export interface FileOutcome {
  format?: FileFormat;
  documents: LoadedDocument[];
  skipped: SkippedItem[];
}

const EXTENSIONS: Readonly<Record<string, FileFormat>> = {
  '.pdf': 'pdf',
  '.docx': 'docx',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdx': 'markdown',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
  '.txt': 'text',
  '.text': 'text',
};

/** Extensions this package reads, for a folder walk or an upload form's `accept`. */
export const FILE_EXTENSIONS: readonly string[] = Object.keys(EXTENSIONS);

/** A file's format by its content where that is certain (PDF, zip), else by its extension. */
export function fileFormat(name: string, data: Buffer): FileFormat | undefined {
  if (data.subarray(0, 1024).includes('%PDF-')) return 'pdf';
  const byName = EXTENSIONS[extname(name).toLowerCase()];
  // A .docx is a zip; anything else under that name is not one (an old binary .doc renamed).
  if (byName === 'docx') return data.subarray(0, 4).equals(ZIP_MAGIC) ? 'docx' : undefined;
  return byName;
}

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

function skip(name: string, code: SkipCode, reason: string, format?: FileFormat): FileOutcome {
  return { format, documents: [], skipped: [{ url: name, code, reason }] };
}

/**
 * Reads one file into documents. Never throws for a bad file: an unknown type, an encrypted,
 * corrupt or scanned (no text layer) PDF, an unreadable .docx, binary bytes under a text name,
 * each comes back as a {@link SkippedItem} saying why.
 */
export async function extractFile(file: FileInput, options: FileExtractOptions = {}): Promise<FileOutcome> {
  const { name, data } = file;
  const format = fileFormat(name, data);
  if (!format) {
    const ext = extname(name).toLowerCase();
    return skip(
      name,
      'UNSUPPORTED',
      ext === '.docx'
        ? 'not a Word .docx file (not a zip archive; an old .doc or a renamed file?)'
        : `unsupported file type${ext ? ` "${ext}"` : ''}: kbqa reads ${FILE_EXTENSIONS.join(', ')}`,
    );
  }
  const withMeta = (doc: LoadedDocument): LoadedDocument =>
    file.metadata ? { ...doc, metadata: { ...file.metadata } } : doc;
  switch (format) {
    case 'pdf': {
      const outcome = await readPdf(name, data, options);
      return { format, documents: outcome.documents.map(withMeta), skipped: outcome.skipped };
    }
    case 'docx': {
      let html: string;
      try {
        html = await docxToHtml(data);
      } catch (e) {
        return skip(name, 'CORRUPT', `corrupt or unreadable Word file: ${message(e)}`, format);
      }
      return single(format, name, htmlDocument(name, html), withMeta);
    }
    case 'html': {
      const text = decodeText(data);
      if (text === undefined) return skip(name, 'CORRUPT', 'binary content under an HTML file name', format);
      return single(format, name, htmlDocument(name, text), withMeta);
    }
    case 'markdown':
    case 'text': {
      const text = decodeText(data);
      if (text === undefined) {
        return skip(name, 'CORRUPT', `binary content under a ${format} file name`, format);
      }
      const heading = format === 'markdown' ? /^#\s+(.+)$/m.exec(text)?.[1]?.trim() : undefined;
      return single(
        format,
        name,
        { source: name, link: name, title: heading || name, content: text },
        withMeta,
      );
    }
  }
}

function single(
  format: FileFormat,
  name: string,
  doc: LoadedDocument,
  withMeta: (doc: LoadedDocument) => LoadedDocument,
): FileOutcome {
  if (!doc.content.trim()) return skip(name, 'NO_CONTENT', 'the file holds no text', format);
  return { format, documents: [withMeta(doc)], skipped: [] };
}

/** HTML (a page, or a .docx converted) as markdown through @kbqa/html, as pages of a site are. */
function htmlDocument(name: string, html: string): LoadedDocument {
  // A base URL that resolves nothing real: links of the file are kept as text only.
  const page = extractContent(html, 'https://file.invalid/');
  return { source: name, link: name, title: page.title || name, content: page.markdown };
}

async function docxToHtml(data: Buffer): Promise<string> {
  const mammoth = await import('mammoth');
  const result = await mammoth.convertToHtml({ buffer: data });
  return result.value;
}

/** UTF-8 text without its BOM, or undefined when the bytes are binary (NUL bytes). */
function decodeText(data: Buffer): string | undefined {
  if (data.subarray(0, 8192).includes(0)) return undefined;
  return data.toString('utf8').replace(/^\uFEFF/, '');
}

export function message(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 300);
}
