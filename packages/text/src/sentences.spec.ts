import { sentenceSlices, sentenceStarts, splitSentences } from './sentences';

describe(splitSentences.name, () => {
  it('splits prose at sentence ends', () => {
    expect(splitSentences('Fastify is fast. It has plugins! Does it? Yes.')).toEqual([
      'Fastify is fast.',
      'It has plugins!',
      'Does it?',
      'Yes.',
    ]);
  });

  it('never splits inside inline code, dotted identifiers or before a lowercase word', () => {
    const text =
      'Call `reply.send()` to answer. Use fastify.register to add `@fastify/cors`. Then v1.2 is out, e.g. here.';
    expect(splitSentences(text)).toEqual([
      'Call `reply.send()` to answer.',
      'Use fastify.register to add `@fastify/cors`.',
      'Then v1.2 is out, e.g. here.',
    ]);
  });

  it('keeps a sentence whole when inline code holds a full stop and a capital', () => {
    expect(splitSentences('Run `a. B` now. Next.')).toEqual(['Run `a. B` now.', 'Next.']);
    expect(splitSentences('Run ``a. `B`` now. Next.')).toEqual(['Run ``a. `B`` now.', 'Next.']);
  });

  it('does not end a sentence at an abbreviation', () => {
    expect(splitSentences('Hooks, e.g. Fastify hooks, run. See Fig. 2 for details.')).toEqual([
      'Hooks, e.g. Fastify hooks, run.',
      'See Fig. 2 for details.',
    ]);
  });

  it('ends a sentence after closing brackets, quotes and marks, before any capital', () => {
    expect(splitSentences('It is (really) done.) Then "quoted." **Bold.** Écrit. 2 more.')).toEqual([
      'It is (really) done.)',
      'Then "quoted."',
      '**Bold.**',
      'Écrit.',
      '2 more.',
    ]);
  });

  it('leaves out pieces without a letter or digit', () => {
    expect(splitSentences('Done. ... ')).toEqual(['Done.']);
  });
});

describe(sentenceSlices.name, () => {
  it('keeps trailing whitespace so the pieces concatenate back to the text', () => {
    const text = 'One.  Two!\nThree? four. Five';
    expect(sentenceSlices(text)).toEqual(['One.  ', 'Two!\n', 'Three? four. ', 'Five']);
    expect(sentenceSlices(text).join('')).toBe(text);
  });
});

describe(sentenceStarts.name, () => {
  it('gives the cut points after the first sentence', () => {
    expect(sentenceStarts('A b. C d. e f.')).toEqual([5]);
  });

  it('stays linear on many unmatched backtick runs', () => {
    const text = `${'`a. B '.repeat(10_000)}${'``c. D '.repeat(10_000)}`;
    expect(sentenceStarts(text).length).toBeGreaterThan(0);
  });
});
