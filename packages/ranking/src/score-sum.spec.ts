import { ScoreSum } from './score-sum';

/** Ids and scores as a term's score list holds them: ids ascending. */
const termScores = (rows: Array<[id: number, score: number]>) => {
  const sorted = [...rows].sort((x, y) => x[0] - y[0]);
  return {
    ids: Int32Array.from(sorted.map((r) => r[0])),
    scores: Float64Array.from(sorted.map((r) => r[1])),
  };
};

describe(ScoreSum.name, () => {
  it('sums each chunk in the order its values are added, as 0 + a + b would', () => {
    const sum = new ScoreSum();
    sum.begin(10);
    sum.add(3, 0.1);
    sum.add(7, 1);
    sum.add(3, 0.2);
    sum.add(3, 0.3);
    expect(sum.get(3)).toBe(0 + 0.1 + 0.2 + 0.3);
    expect(sum.get(7)).toBe(1);
    expect(sum.get(5)).toBe(0);
    expect([...sum.touched]).toEqual([3, 7]);
  });

  it('starts every sum afresh after begin, and grows for larger ids', () => {
    const sum = new ScoreSum();
    sum.begin(4);
    sum.add(2, 5);
    sum.begin(5000);
    expect(sum.get(2)).toBe(0);
    for (let id = 0; id <= 5000; id++) sum.add(id, id % 7);
    sum.add(2, 1);
    expect(sum.get(2)).toBe(3);
    expect(sum.touched.length).toBe(5001);
    expect(sum.top(3)).toEqual([6, 13, 20]);
  });
  it('adds a list of BM25 saturations as adding each one would, to the bit', () => {
    const ids = Int32Array.from([2, 5, 9]);
    const tfs = Float32Array.from([1, 2.5, 0]);
    const lens = Int32Array.from([10, 40, 7]);
    const one = new ScoreSum();
    one.begin(9);
    one.add(5, 0.3);
    one.addBm25(ids, tfs, lens, 1.7, 1.2, 0.75, 23.4);
    const each = new ScoreSum();
    each.begin(9);
    each.add(5, 0.3);
    ids.forEach((id, j) => {
      const tf = tfs[j]!;
      each.add(id, tf > 0 ? (1.7 * tf * (1.2 + 1)) / (tf + 1.2 * (1 - 0.75 + (0.75 * lens[j]!) / 23.4)) : 0);
    });
    for (const id of [2, 5, 9]) expect(one.get(id)).toBe(each.get(id));
    expect(one.get(9)).toBe(0);
    expect([...one.touched]).toEqual([5, 2, 9]);
    // A zero weight leaves the sums but still makes its chunks candidates.
    one.begin(9);
    one.addBm25(ids, tfs, lens, 0, 1.2, 0.75, 23.4);
    expect([...one.touched]).toEqual([2, 5, 9]);
    expect(one.top(3)).toEqual([2, 5, 9]);
  });
});

describe('ScoreSum of term score lists', () => {
  it('sums lists per id in list order and forgets the previous sum on begin', () => {
    const acc = new ScoreSum();
    const a = termScores([
      [4, 0.1],
      [2, 0.2],
    ]);
    const b = termScores([
      [4, 0.7],
      [9, 1],
    ]);
    acc.begin(9);
    acc.addList(a.ids, a.scores);
    acc.addList(b.ids, b.scores);
    expect([...acc.touched]).toEqual([2, 4, 9]);
    expect(acc.get(4)).toBe(0.1 + 0.7);
    expect(acc.get(3)).toBe(0);
    expect(acc.top(2)).toEqual([9, 4]);
    acc.begin(9);
    expect([...acc.touched]).toEqual([]);
    expect(acc.has(4)).toBe(false);
    // Grown for larger ids.
    const many = termScores(Array.from({ length: 5000 }, (_, i) => [i, i % 7]));
    acc.begin(5000);
    acc.addList(many.ids, many.scores);
    acc.addList(many.ids, many.scores);
    expect(acc.touched.length).toBe(5000);
    expect(acc.get(4999)).toBe(2 * (4999 % 7));
  });
});
