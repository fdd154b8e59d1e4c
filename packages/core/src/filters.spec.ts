import { KbqaError } from './errors';
import { parseWhere } from './filters';

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
});

describe(KbqaError.name, () => {
  it('survives serialization through a queue', () => {
    const original = new KbqaError('FETCH_REFUSED', 'refused 127.0.0.1');
    const copy = KbqaError.from(JSON.parse(JSON.stringify(original)));
    expect(copy.code).toBe('FETCH_REFUSED');
    expect(copy.status).toBe(400);
    expect(copy.message).toBe('refused 127.0.0.1');
  });
});
