import { forEachCommon } from './bm25';
import type { PostingList } from './postings-cache';
import { ScoreSum, topIds } from './score-sum';

const list = (rows: Array<[id: number, tf: number, docLen: number]>): PostingList => ({
  chunkIds: Int32Array.from(rows.map((r) => r[0])),
  tfs: Float32Array.from(rows.map((r) => r[1])),
  docLens: Int32Array.from(rows.map((r) => r[2])),
});

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

describe(topIds.name, () => {
  it('returns the best ids first, ties by the smaller id, at most limit', () => {
    const score = Float64Array.from([0, 2, 5, 2, 9, 2]);
    const ids = Int32Array.from([5, 3, 1, 2, 4, 0]);
    expect(topIds(ids, score, 4)).toEqual([4, 2, 1, 3]);
    expect(topIds(ids, score, 10)).toEqual([4, 2, 1, 3, 5, 0]);
    expect(topIds(ids, score, 0)).toEqual([]);
  });

  it('agrees with a full sort on random scores with many ties', () => {
    const n = 2000;
    const score = Float64Array.from({ length: n }, (_, i) => (i * 7919) % 13);
    const ids = Int32Array.from({ length: n }, (_, i) => (i * 31) % n);
    const sorted = [...ids].sort((a, b) => score[b]! - score[a]! || a - b);
    expect(topIds(ids, score, 60)).toEqual(sorted.slice(0, 60));
  });
});

describe('forEachCommon', () => {
  it('visits the chunks in every list with their least tf, in id order', () => {
    const seen: Array<[number, number, number]> = [];
    forEachCommon(
      [
        list([
          [1, 4, 10],
          [3, 1, 30],
          [5, 2.5, 50],
          [9, 1, 90],
        ]),
        list([
          [3, 2, 30],
          [5, 0.5, 50],
          [8, 1, 80],
          [9, 4, 90],
        ]),
        list([
          [0, 1, 1],
          [3, 1.5, 30],
          [5, 1, 50],
          [9, 2, 90],
        ]),
      ],
      (id, tf, docLen) => seen.push([id, tf, docLen]),
    );
    expect(seen).toEqual([
      [3, 1, 30],
      [5, 0.5, 50],
      [9, 1, 90],
    ]);
  });

  it('visits nothing when one list is empty or no chunk is in all', () => {
    const seen: number[] = [];
    forEachCommon([list([[1, 1, 1]]), list([])], (id) => seen.push(id));
    forEachCommon([list([[1, 1, 1]]), list([[2, 1, 1]])], (id) => seen.push(id));
    expect(seen).toEqual([]);
  });
});
