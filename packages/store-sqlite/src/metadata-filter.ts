import type { MetadataCondition } from '@kbqa/core';

export interface SqlFragment {
  sql: string;
  params: Array<string | number>;
}

const SQL_OP: Record<string, string> = { $eq: '=', $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };

/**
 * SQL for parsed `where` conditions over a JSON metadata column, AND-ed. Field names were
 * validated by parseWhere and are passed as parameters in a JSON path, never spliced raw.
 * Numbers compare as numbers and strings as strings because json_extract keeps JSON types.
 * A JSON true or false reads as NULL, as a missing field does: json_extract would make it 1 or 0,
 * equal to a number, where PostgreSQL's jsonb (the other store) never equals a boolean to one.
 * `$ne` and `$nin` match NULL (a document without the field holds no value equal to or in them).
 */
export function metadataWhereSql(conditions: MetadataCondition[], column: string): SqlFragment {
  const parts: string[] = [];
  const params: Array<string | number> = [];
  const value = `(CASE WHEN json_type(${column}, ?) IN ('true', 'false') THEN NULL ELSE json_extract(${column}, ?) END)`;
  for (const c of conditions) {
    const path = `$."${c.field}"`;
    params.push(path, path);
    if (c.op === '$in' || c.op === '$nin') {
      const values = c.value as Array<string | number>;
      const list = `${value} ${c.op === '$in' ? 'IN' : 'NOT IN'} (${values.map(() => '?').join(', ')})`;
      parts.push(c.op === '$in' ? list : `coalesce(${list}, 1)`);
      params.push(...values);
    } else if (c.op === '$ne') {
      parts.push(`coalesce(${value} <> ?, 1)`);
      params.push(c.value as string | number);
    } else {
      parts.push(`${value} ${SQL_OP[c.op]} ?`);
      params.push(c.value as string | number);
    }
  }
  return { sql: parts.join(' AND '), params };
}
