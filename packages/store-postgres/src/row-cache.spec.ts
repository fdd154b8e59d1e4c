import { RowCache } from './row-cache';

describe(RowCache.name, () => {
  it('drops the least recently used rows once their weight passes the bound', () => {
    const cache = new RowCache<string>(10, (s) => s.length);
    cache.put(1, 'aaaa');
    cache.put(2, 'bbbb');
    expect(cache.get(1)).toBe('aaaa');
    cache.put(3, 'cccc');
    // 12 > 10: row 2, used least recently, goes.
    expect(cache.get(2)).toBeUndefined();
    expect(cache.get(1)).toBe('aaaa');
    expect(cache.get(3)).toBe('cccc');
    expect(cache.size).toBe(2);
  });

  it('never holds a row heavier than the bound, and replaces a row put again', () => {
    const cache = new RowCache<string>(5, (s) => s.length);
    cache.put(1, 'toolongrow');
    expect(cache.get(1)).toBeUndefined();
    cache.put(2, 'ab');
    cache.put(2, 'abcd');
    cache.put(3, 'a');
    expect(cache.get(2)).toBe('abcd');
    expect(cache.get(3)).toBe('a');
  });
});
