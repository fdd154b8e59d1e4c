import { describe, expect, it } from '@jest/globals';
import { extractFile, fileFormat } from './extract-file';
import { makeDocx, makeEncryptedPdf, makePdf } from './testing';

describe(extractFile.name, () => {
  it('reads a PDF page by page, linking each to #page=N and passing over a page without text', async () => {
    const data = await makePdf(
      [
        'Chapter one: unpacking the kettle.',
        '',
        'Chapter three: descaling.\nRun vinegar through the kettle once a month.',
      ],
      'Kettle manual',
    );
    const outcome = await extractFile({ name: 'manuals/kettle.pdf', data, metadata: { product: 'kettle' } });
    expect(outcome.format).toBe('pdf');
    expect(outcome.skipped).toEqual([]);
    expect(outcome.documents.map((d) => d.link)).toEqual([
      'manuals/kettle.pdf#page=1',
      'manuals/kettle.pdf#page=3',
    ]);
    const third = outcome.documents[1];
    expect(third?.source).toBe('manuals/kettle.pdf');
    expect(third?.title).toBe('Kettle manual');
    expect(third?.content).toContain('Run vinegar through the kettle once a month.');
    expect(third?.metadata).toEqual({ product: 'kettle' });
  });

  it('reads only the first pages up to its page limit and says how many it left', async () => {
    const data = await makePdf(['one', 'two', 'three']);
    const outcome = await extractFile({ name: 'long.pdf', data }, { maxPages: 2 });
    expect(outcome.documents).toHaveLength(2);
    expect(outcome.skipped).toEqual([
      { url: 'long.pdf#page=3', code: 'LIMIT', reason: 'only the first 2 of 3 pages were read (page limit)' },
    ]);
  });

  it('passes over a scanned PDF (no text layer) with NO_CONTENT', async () => {
    const outcome = await extractFile({ name: 'scan.pdf', data: await makePdf(['', '']) });
    expect(outcome.documents).toEqual([]);
    expect(outcome.skipped).toEqual([
      { url: 'scan.pdf', code: 'NO_CONTENT', reason: expect.stringContaining('no text layer') },
    ]);
  });

  it('passes over an encrypted PDF with ENCRYPTED', async () => {
    const outcome = await extractFile({ name: 'locked.pdf', data: await makeEncryptedPdf() });
    expect(outcome.documents).toEqual([]);
    expect(outcome.skipped).toEqual([
      { url: 'locked.pdf', code: 'ENCRYPTED', reason: expect.stringContaining('encrypted with a password') },
    ]);
  });

  it('passes over a corrupt PDF with CORRUPT', async () => {
    const data = (await makePdf(['hello'])).subarray(0, 300);
    const outcome = await extractFile({ name: 'broken.pdf', data });
    expect(outcome.skipped).toEqual([
      { url: 'broken.pdf', code: 'CORRUPT', reason: expect.stringContaining('corrupt or unreadable PDF') },
    ]);
  });

  it('reads a Word .docx as markdown with its headings', async () => {
    const data = await makeDocx('Travel policy', [
      '## Trains',
      'Book second class for trips under four hours.',
    ]);
    const outcome = await extractFile({ name: 'policy.docx', data });
    expect(outcome.format).toBe('docx');
    const [doc] = outcome.documents;
    expect(doc).toMatchObject({ source: 'policy.docx', link: 'policy.docx', title: 'Travel policy' });
    expect(doc?.content).toContain('## Trains');
    expect(doc?.content).toContain('Book second class for trips under four hours.');
  });

  it('passes over a .docx that is not a zip, and a corrupt zip, saying why', async () => {
    const notZip = await extractFile({ name: 'old.docx', data: Buffer.from('\xd0\xcf\x11\xe0 binary doc') });
    expect(notZip.skipped[0]).toMatchObject({
      code: 'UNSUPPORTED',
      reason: expect.stringContaining('not a zip'),
    });
    const truncated = (await makeDocx('x', ['y'])).subarray(0, 200);
    const corrupt = await extractFile({ name: 'cut.docx', data: truncated });
    expect(corrupt.skipped[0]).toMatchObject({
      code: 'CORRUPT',
      reason: expect.stringContaining('Word file'),
    });
  });

  it('reads Markdown, HTML and plain text', async () => {
    const md = await extractFile({
      name: 'faq.md',
      data: Buffer.from('# FAQ\n\nReturns are free for 30 days.\n'),
    });
    expect(md.documents[0]).toMatchObject({ title: 'FAQ', link: 'faq.md' });
    const html = await extractFile({
      name: 'page.html',
      data: Buffer.from(
        '<html><head><title>Shipping</title></head><body><main><h1>Shipping</h1><p>Parcels leave within two days.</p></main></body></html>',
      ),
    });
    expect(html.documents[0]?.title).toBe('Shipping');
    expect(html.documents[0]?.content).toContain('Parcels leave within two days.');
    const txt = await extractFile({ name: 'notes.txt', data: Buffer.from('\uFEFFPlain words.') });
    expect(txt.documents[0]).toMatchObject({ title: 'notes.txt', content: 'Plain words.' });
  });

  it('passes over an unknown type, binary bytes under a text name, and an empty file', async () => {
    const png = await extractFile({ name: 'logo.png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]) });
    expect(png.skipped[0]).toMatchObject({
      url: 'logo.png',
      code: 'UNSUPPORTED',
      reason: expect.stringContaining('".png"'),
    });
    const binary = await extractFile({ name: 'data.txt', data: Buffer.from([1, 0, 2, 0]) });
    expect(binary.skipped[0]).toMatchObject({ code: 'CORRUPT' });
    const empty = await extractFile({ name: 'empty.md', data: Buffer.from('  \n') });
    expect(empty.skipped[0]).toMatchObject({ code: 'NO_CONTENT' });
  });

  it('knows a PDF by its header whatever its name', () => {
    expect(fileFormat('scan', Buffer.from('%PDF-1.7\n'))).toBe('pdf');
    expect(fileFormat('readme', Buffer.from('hello'))).toBeUndefined();
  });
});
