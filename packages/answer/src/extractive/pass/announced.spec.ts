import { describe, expect, it } from '@jest/globals';
import { lintAnswer } from '../../answer-hygiene';
import { answer, source } from '../../../test/extractive';

describe('the announcedBlocks pass', () => {
  it('shows the list items a chosen sentence announces, as a list after it', async () => {
    const text = await answer('Which regions does the mirror replicate to?', [
      source(
        1,
        'Mirror',
        [
          '## Mirror regions',
          '',
          'The mirror replicates every bucket to the following regions:',
          '',
          '- Lisbon',
          '- Oslo',
          '- Quito',
        ].join('\n'),
      ),
    ]);
    expect(text).toBe(
      'The mirror replicates every bucket to the following regions [1]:\n\n- Lisbon\n- Oslo\n- Quito',
    );
    expect(lintAnswer(text, new Set([1]))).toEqual([]);
  });

  it('shows the first items of a list too long for the answer, and says there are more', async () => {
    const items = Array.from(
      { length: 12 },
      (_, i) => `- Region number ${i + 1} with a long descriptive name here`,
    );
    const text = await answer('Which regions does the mirror replicate to?', [
      source(
        1,
        'Mirror',
        [
          '## Mirror regions',
          '',
          'Mirrors are billed per region. The mirror replicates every bucket to the following regions:',
          '',
          ...items,
        ].join('\n'),
      ),
    ]);
    expect(text).toMatch(/following regions \[1\]:\n\n- Region number 1 with/);
    expect(text).toMatch(/\n- Region number 8 with a long descriptive name here\n- …$/);
    expect(lintAnswer(text, new Set([1]))).toEqual([]);
  });
});
