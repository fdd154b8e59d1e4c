import { forEachCommon } from './bm25';
import type { PostingList } from './postings-cache';

const list = (rows: Array<[id: number, tf: number, docLen: number]>): PostingList => ({
  chunkIds: Int32Array.from(rows.map((r) => r[0])),
  tfs: Float32Array.from(rows.map((r) => r[1])),
  docLens: Int32Array.from(rows.map((r) => r[2])),
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
