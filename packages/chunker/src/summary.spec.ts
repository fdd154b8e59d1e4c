import { sha256Hex } from '@kbqa/core';
import { embeddingText } from './embedding-text';
import { summaryChunk } from './summary';

describe(summaryChunk.name, () => {
  const doc = { source: 'https://x.test/a', content: '# Title\n\nText.' };

  it('builds a summary chunk with the document title and link', () => {
    const chunk = summaryChunk(doc, '  A model-written summary.  ', 3);
    expect(chunk).toEqual({
      ordinal: 3,
      content: 'A model-written summary.',
      headingPath: [],
      title: 'Title',
      link: 'https://x.test/a',
      kind: 'summary',
      contentHash: sha256Hex('Title\n\nA model-written summary.'),
    });
    expect(chunk && embeddingText(chunk)).toBe('Title\n\nA model-written summary.');
  });

  it('prefers the document link and title', () => {
    const chunk = summaryChunk({ ...doc, link: 'https://x.test/b', title: 'Given' }, 'S.', 0);
    expect(chunk?.link).toBe('https://x.test/b');
    expect(chunk?.title).toBe('Given');
  });

  it('gives nothing for a blank summary', () => {
    expect(summaryChunk(doc, ' \n ', 0)).toBeUndefined();
  });
});
