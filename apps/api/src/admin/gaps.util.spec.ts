import { type GapQuestion, groupGaps } from './gaps.util';

const q = (question: string, askedAt: string, flags: Partial<GapQuestion> = {}): GapQuestion => ({
  question,
  askedAt,
  noSource: true,
  ratedBad: false,
  ...flags,
});

describe('groupGaps', () => {
  it('groups similar wordings under the most frequent one, with counts and examples', () => {
    const groups = groupGaps([
      q('How do I export invoices?', '2026-01-01T10:00:00.000000'),
      q('how do  I export invoices?', '2026-01-02T10:00:00.000000', { noSource: false, ratedBad: true }),
      q('export invoice', '2026-01-03T10:00:00.000000'),
      q('Exporting invoices to CSV', '2026-01-04T10:00:00.000000'),
      q('What is the refund policy?', '2026-01-05T10:00:00.000000'),
    ]);
    expect(groups).toEqual([
      {
        question: 'How do I export invoices?',
        count: 4,
        no_source: 3,
        rated_bad: 1,
        examples: ['How do I export invoices?', 'Exporting invoices to CSV', 'export invoice'],
        last_asked: '2026-01-04T10:00:00.000000',
      },
      {
        question: 'What is the refund policy?',
        count: 1,
        no_source: 1,
        rated_bad: 0,
        examples: ['What is the refund policy?'],
        last_asked: '2026-01-05T10:00:00.000000',
      },
    ]);
  });

  it('keeps wordings that share less than half their content words apart', () => {
    const groups = groupGaps([
      q('export invoices', '2026-01-01T00:00:00.000000'),
      q('export invoices as PDF with company logo', '2026-01-02T00:00:00.000000'),
    ]);
    expect(groups.map((g) => g.question)).toEqual([
      'export invoices as PDF with company logo',
      'export invoices',
    ]);
  });

  it('groups wordings without content words only with the same text', () => {
    const groups = groupGaps([q('how?', 'a'), q('How?', 'b'), q('why?', 'c')]);
    expect(groups.map((g) => [g.question, g.count])).toEqual([
      ['how?', 2],
      ['why?', 1],
    ]);
  });

  it('shows at most five examples and at most `max` groups', () => {
    const many = ['a b', 'a b c', 'a b d', 'a b e', 'a b f', 'a b g'].map((w, i) =>
      q(`alpha beta ${w.replace(/\b(\w)\b/g, 'x$1x')}`, String(i)),
    );
    const [group] = groupGaps(many);
    expect(group?.examples).toHaveLength(5);
    expect(groupGaps([q('one thing', '1'), q('other matter', '2')], 1)).toHaveLength(1);
  });
});
