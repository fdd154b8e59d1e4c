import { metadataWhereSql } from './metadata-filter';

describe('metadataWhereSql', () => {
  it('binds field names and values as parameters from the given number, never in the SQL text', () => {
    const { sql, params } = metadataWhereSql(
      [
        { field: "x'; DROP TABLE chunks; --", op: '$eq', value: 'v' },
        { field: 'version', op: '$gte', value: 2 },
        { field: 'tag', op: '$in', value: ['a', 1] },
      ],
      'd.metadata',
      5,
    );
    expect(sql).not.toContain('DROP');
    expect(sql).toContain('$5');
    expect(params).toEqual([
      "x'; DROP TABLE chunks; --",
      '"v"',
      'version',
      'version',
      2,
      'tag',
      ['"a"', '1'],
    ]);
  });

  it('lets a document without the field pass $nin, as it passes $ne', () => {
    const { sql, params } = metadataWhereSql(
      [{ field: 'tag', op: '$nin', value: ['a', 2] }],
      'd.metadata',
      1,
    );
    expect(sql).toBe('(d.metadata -> $1::text IS NULL OR NOT (d.metadata -> $1::text = ANY($2::jsonb[])))');
    expect(params).toEqual(['tag', ['"a"', '2']]);
  });

  it('is empty without conditions', () => {
    expect(metadataWhereSql([], 'd.metadata', 1)).toEqual({ sql: '', params: [] });
  });
});
