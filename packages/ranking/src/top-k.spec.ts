import { indexOfId, topIds, TopK } from './top-k';
import { ScoreSum } from './score-sum';

/** A ScoreSum holding `score[id]` for each of `ids`. */
function summed(ids: ArrayLike<number>, score: ArrayLike<number>): ScoreSum {
  const sum = new ScoreSum();
  sum.begin(score.length);
  for (let i = 0; i < ids.length; i++) sum.add(ids[i]!, score[ids[i]!]!);
  return sum;
}

describe(topIds.name, () => {
  it('keeps the best scores, best first, ties by smaller id', () => {
    const scores = new Map([
      [5, 1],
      [3, 9],
      [8, 4],
      [1, 4],
      [9, 0.5],
      [2, 9],
    ]);
    expect(topIds([...scores.keys()], (id) => scores.get(id)!, 4)).toEqual([2, 3, 1, 8]);
    expect(topIds([...scores.keys()], (id) => scores.get(id)!, 10)).toEqual([2, 3, 1, 8, 5, 9]);
    expect(topIds([1, 2], () => 1, 0)).toEqual([]);
  });

  it('agrees with a full sort on many random scores', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 10;
    const ids = Array.from({ length: 5000 }, (_, i) => i + 1);
    const score = new Map(ids.map((id) => [id, Math.round(random() * 100) / 100]));
    const sorted = [...ids].sort((a, b) => score.get(b)! - score.get(a)! || a - b);
    expect(topIds(ids, (id) => score.get(id)!, 37)).toEqual(sorted.slice(0, 37));
  });
});

describe('ScoreSum.top', () => {
  it('returns the best ids first, ties by the smaller id, at most limit', () => {
    const score = [0, 2, 5, 2, 9, 2];
    const sum = summed([5, 3, 1, 2, 4, 0], score);
    expect(sum.top(4)).toEqual([4, 2, 1, 3]);
    expect(sum.top(10)).toEqual([4, 2, 1, 3, 5, 0]);
    expect(sum.top(0)).toEqual([]);
  });

  it('agrees with a full sort on random scores with many ties', () => {
    const n = 2000;
    const score = Float64Array.from({ length: n }, (_, i) => (i * 7919) % 13);
    const ids = Int32Array.from({ length: n }, (_, i) => (i * 31) % n);
    const sorted = [...ids].sort((a, b) => score[b]! - score[a]! || a - b);
    expect(summed(ids, score).top(60)).toEqual(sorted.slice(0, 60));
  });
});

describe(TopK.name, () => {
  it('keeps nothing with a limit of 0', () => {
    const top = new TopK(0);
    top.offer(1, 5);
    expect(top.ids()).toEqual([]);
  });
});

describe(indexOfId.name, () => {
  it('finds an id in ascending ids, -1 when absent', () => {
    const ids = Int32Array.from([2, 5, 9, 14]);
    expect(indexOfId(ids, 2)).toBe(0);
    expect(indexOfId(ids, 14)).toBe(3);
    expect(indexOfId(ids, 6)).toBe(-1);
    expect(indexOfId(new Int32Array(0), 1)).toBe(-1);
  });
});
