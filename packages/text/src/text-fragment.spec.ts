import {
  citedSentence,
  encodeDirectiveText,
  fragmentHref,
  plainText,
  textDirective,
  withTextDirective,
} from './text-fragment';

const CHUNK = [
  '## Retries',
  '',
  'A failed job is retried five times with exponential backoff. Set `max_retries` in',
  '[the config file](/config) to change the count.',
  '',
  '- Jobs that time out count as failed.',
  '',
  '```yaml',
  'max_retries: 3',
  '```',
].join('\n');

describe(citedSentence.name, () => {
  it('finds the sentence an extractive answer quoted, as the page shows it', () => {
    expect(citedSentence('Set max_retries in the config file to change the count', CHUNK)).toBe(
      'Set max_retries in the config file to change the count.',
    );
  });

  it('finds the sentence a paraphrase says most of', () => {
    expect(citedSentence('Failed jobs are retried five times, backing off exponentially', CHUNK)).toBe(
      'A failed job is retried five times with exponential backoff.',
    );
    expect(citedSentence('Timed-out jobs are counted as failures', CHUNK)).toBe(
      'Jobs that time out count as failed.',
    );
  });

  it('finds nothing for a passage the chunk does not say, or one too short to tell', () => {
    expect(citedSentence('Schedules are written as cron expressions', CHUNK)).toBeUndefined();
    expect(citedSentence('Retries', CHUNK)).toBeUndefined();
    expect(citedSentence('', CHUNK)).toBeUndefined();
  });
});

describe(textDirective.name, () => {
  it('quotes a short sentence whole, without its edge punctuation', () => {
    expect(textDirective('Jobs that time out count as failed.')).toBe(
      'text=Jobs%20that%20time%20out%20count%20as%20failed',
    );
  });

  it('quotes a long sentence by its first and last five words', () => {
    expect(textDirective('A failed job is retried five times with exponential backoff and a cap.')).toBe(
      'text=A%20failed%20job%20is%20retried,exponential%20backoff%20and%20a%20cap',
    );
  });

  it('percent-encodes the characters the directive syntax reserves', () => {
    expect(textDirective('Use a built-in, fast & safe parser.')).toBe(
      'text=Use%20a%20built%2Din%2C%20fast%20%26%20safe%20parser',
    );
    expect(encodeDirectiveText('é-,&#%')).toBe('%C3%A9%2D%2C%26%23%25');
  });

  it('gives nothing for a sentence without words', () => {
    expect(textDirective('—')).toBeUndefined();
  });
});

describe(fragmentHref.name, () => {
  const page = 'https://docs.example.com/retries';

  it('leads to the cited sentence of the chunk, the answer written as Markdown', () => {
    expect(fragmentHref(page, '- Jobs that **time out** count as failed', CHUNK)).toBe(
      `${page}#:~:text=Jobs%20that%20time%20out%20count%20as%20failed`,
    );
  });

  it('leads to the page alone when the chunk does not say the passage or is unknown', () => {
    expect(fragmentHref(page, 'Schedules are cron expressions', CHUNK)).toBe(page);
    expect(fragmentHref(page, 'Jobs that time out count as failed', undefined)).toBe(page);
  });
});

describe(withTextDirective.name, () => {
  it('starts a fragment, follows an element fragment, and replaces an old directive', () => {
    expect(withTextDirective('https://d.example/p', 'text=a')).toBe('https://d.example/p#:~:text=a');
    expect(withTextDirective('https://d.example/p#setup', 'text=a')).toBe(
      'https://d.example/p#setup:~:text=a',
    );
    expect(withTextDirective('https://d.example/p#:~:text=old', 'text=a')).toBe(
      'https://d.example/p#:~:text=a',
    );
  });
});

describe(plainText.name, () => {
  it('removes markers, list marks, emphasis, code ticks and link syntax, keeping snake_case', () => {
    expect(plainText('1. Set **`max_retries`** in [the file](/f) [2][3], _now_.')).toBe(
      'Set max_retries in the file, now.',
    );
  });
});
