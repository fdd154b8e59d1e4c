import { bestTaughtMatch, TAUGHT_MATCH_MIN } from './taught-match';

describe('bestTaughtMatch', () => {
  const pairs = [
    { id: 1, question: 'How do I reset my password?' },
    { id: 2, question: 'How do I install plugins?' },
  ];

  it('finds the taught question worded differently', () => {
    expect(bestTaughtMatch('how can I reset the password', pairs)).toEqual({ pair: pairs[0], similarity: 1 });
    expect(bestTaughtMatch('Installing a plugin', pairs)?.pair.id).toBe(2);
  });

  it('takes nothing on a weak match', () => {
    expect(bestTaughtMatch('reset the password of admin accounts', pairs)).toBeUndefined();
    expect(bestTaughtMatch('password', pairs)).toBeUndefined();
    expect(bestTaughtMatch('how do I configure logging', pairs)).toBeUndefined();
    expect(bestTaughtMatch('how?', pairs)).toBeUndefined();
  });

  it('prefers the closest, then the newest pair', () => {
    const more = [
      ...pairs,
      { id: 3, question: 'reset password' },
      { id: 4, question: 'reset forgotten password' },
    ];
    expect(bestTaughtMatch('reset password', more)?.pair.id).toBe(3);
    expect(
      bestTaughtMatch('password reset', [pairs[0]!, { id: 5, question: 'password resets' }])?.pair.id,
    ).toBe(5);
  });

  it('uses 0.6 as the default threshold', () => {
    expect(TAUGHT_MATCH_MIN).toBe(0.6);
    expect(bestTaughtMatch('reset a forgotten password', pairs)?.similarity).toBeCloseTo(2 / 3);
  });
});
