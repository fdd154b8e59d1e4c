// Fixture files made by the tests themselves (PDFs through pdf-lib, Word files through docx): both
// are devDependencies, so only tests import this entry point.
import { Document, HeadingLevel, Packer, Paragraph } from 'docx';
import { PDFDocument, PDFHexString, PDFName, StandardFonts, rgb } from 'pdf-lib';

/**
 * A PDF with one page per entry, each entry's lines drawn as text. An empty entry is a page
 * without a text layer: only a grey box, as a scanned image would be.
 */
export async function makePdf(pages: string[], title?: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  if (title) doc.setTitle(title);
  for (const text of pages) {
    const page = doc.addPage([595, 842]);
    if (!text) {
      page.drawRectangle({ x: 50, y: 300, width: 400, height: 400, color: rgb(0.6, 0.6, 0.6) });
      continue;
    }
    text.split('\n').forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 16, size: 11, font }));
  }
  return Buffer.from(await doc.save());
}

/**
 * A PDF whose trailer names a Standard security handler with a user password that is not empty:
 * readers must ask for a password before they can read anything. pdf-lib cannot encrypt, so the
 * /Encrypt dictionary is written by hand; its O and U entries match no password a reader tries.
 */
export async function makeEncryptedPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText('Secret plans', { x: 50, y: 700, size: 12, font });
  const hex = (byte: number) => PDFHexString.of(byte.toString(16).padStart(2, '0').repeat(32));
  const encrypt = doc.context.obj({ Filter: 'Standard', V: 1, R: 2, Length: 40, P: -44 });
  encrypt.set(PDFName.of('O'), hex(0x4f));
  encrypt.set(PDFName.of('U'), hex(0x55));
  doc.context.trailerInfo.Encrypt = doc.context.register(encrypt);
  const id = PDFHexString.of('0123456789abcdef0123456789abcdef');
  doc.context.trailerInfo.ID = doc.context.obj([id, id]);
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** A Word .docx with a title heading, section headings (`## `) and paragraphs. */
export async function makeDocx(title: string, blocks: string[]): Promise<Buffer> {
  const children = [
    new Paragraph({ text: title, heading: HeadingLevel.HEADING_1 }),
    ...blocks.map((b) =>
      b.startsWith('## ')
        ? new Paragraph({ text: b.slice(3), heading: HeadingLevel.HEADING_2 })
        : new Paragraph({ text: b }),
    ),
  ];
  return Packer.toBuffer(new Document({ sections: [{ children }] }));
}
