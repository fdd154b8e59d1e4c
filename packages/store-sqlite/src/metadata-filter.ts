import type { MetadataCondition } from '@kbqa/core';

export interface SqlFragment {
  sql: string;
  params: Array<string | number>;
}

const SQL_OP: Record<string, string> = { $eq: '=', $ne: '<>', $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };

/**
 * SQL for parsed `where` conditions over a JSON metadata column, AND-ed. Field names were
 * validated by parseWhere and are passed as parameters in a JSON path, never spliced raw.
 * Numbers compare as numbers and strings as strings because json_extract keeps JSON types.
 */
export function metadataWhereSql(conditions: MetadataCondition[], column: string): SqlFragment {
  const parts: string[] = [];
  const params: Array<string | number> = [];
  for (const c of conditions) {
    const path = `$."${c.field}"`;
    if (c.op === '$in') {
      const values = c.value as Array<string | number>;
      parts.push(`json_extract(${column}, ?) IN (${values.map(() => '?').join(', ')})`);
      params.push(path, ...values);
    } else if (c.op === '$nin') {
      // As $ne: a document without the field holds none of the values.
      const values = c.value as Array<string | number>;
      parts.push(
        `(json_extract(${column}, ?) IS NULL OR json_extract(${column}, ?) NOT IN (${values.map(() => '?').join(', ')}))`,
      );
      params.push(path, path, ...values);
    } else if (c.op === '$ne') {
      // A document without the field is "not equal" too.
      parts.push(`(json_extract(${column}, ?) IS NULL OR json_extract(${column}, ?) <> ?)`);
      params.push(path, path, c.value as string | number);
    } else {
      parts.push(`json_extract(${column}, ?) ${SQL_OP[c.op]} ?`);
      params.push(path, c.value as string | number);
    }
  }
  return { sql: parts.join(' AND '), params };
}
