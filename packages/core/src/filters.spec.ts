import { runInNewContext } from 'node:vm';
import { KbqaError } from './errors';
import { MAX_IN_VALUES, MAX_WHERE_FIELDS, parseWhere } from './filters';

describe(parseWhere.name, () => {
  it('parses one operator per field', () => {
    expect(parseWhere({ version: { $gte: 2 }, author: { $in: ['a', 'b'] } })).toEqual([
      { field: 'version', op: '$gte', value: 2 },
      { field: 'author', op: '$in', value: ['a', 'b'] },
    ]);
  });

  it('refuses unknown operators, combinations and wrong value types', () => {
    expect(() => parseWhere({ v: { $regex: 'x' } })).toThrow(/unknown operator "\$regex"/);
    expect(() => parseWhere({ $or: [] })).toThrow(/not supported/);
    expect(() => parseWhere({ v: { $gt: 'x' } })).toThrow(/must be a number/);
    expect(() => parseWhere({ v: { $in: [] } })).toThrow(/non-empty array/);
    expect(() => parseWhere({ v: 3 })).toThrow(KbqaError);
  });

  it('refuses an $in list longer than MAX_IN_VALUES with a bad request naming the limit', () => {
    const atLimit = Array.from({ length: MAX_IN_VALUES }, (_, i) => i);
    expect(parseWhere({ v: { $in: atLimit } })).toHaveLength(1);
    const tooMany = Array.from({ length: 32_767 }, (_, i) => i);
    let caught: unknown;
    try {
      parseWhere({ v: { $in: tooMany } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(KbqaError);
    expect((caught as KbqaError).status).toBe(400);
    expect((caught as KbqaError).message).toContain(`at most ${MAX_IN_VALUES} values`);
  });

  it('refuses a where object naming more than MAX_WHERE_FIELDS fields', () => {
    const where = Object.fromEntries(
      Array.from({ length: MAX_WHERE_FIELDS + 1 }, (_, i) => [`f${i}`, { $eq: i }]),
    );
    expect(() => parseWhere(where)).toThrow(`at most ${MAX_WHERE_FIELDS} fields`);
  });
});

describe(KbqaError.name, () => {
  it('survives serialization through a queue', () => {
    const original = new KbqaError('FETCH_REFUSED', 'refused 127.0.0.1');
    const copy = KbqaError.from(JSON.parse(JSON.stringify(original)));
    expect(copy.code).toBe('FETCH_REFUSED');
    expect(copy.status).toBe(400);
    expect(copy.message).toBe('refused 127.0.0.1');
  });

  it("reads a full disk from the error's code, even from an error of another realm", () => {
    const foreign = runInNewContext(
      "Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })",
    ) as unknown;
    expect(foreign instanceof Error).toBe(false);
    expect(KbqaError.from(foreign).code).toBe('STORAGE_FULL');
    expect(KbqaError.from(Object.assign(new Error('no space'), { code: 'ENOSPC' })).code).toBe(
      'STORAGE_FULL',
    );
  });
});
