import type { MetadataCondition } from '@kbqa/core';

export interface SqlFragment {
  sql: string;
  params: unknown[];
}

const SQL_OP: Record<string, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };

/**
 * SQL for parsed `where` conditions over a jsonb metadata column, AND-ed, with the semantics of
 * the SQLite store's json_extract filters: equality compares JSON values (a number never equals a
 * string), a document without the field is "not equal" and in none of a `$nin` list, order operators compare numbers.
 * Field names and values are bound parameters starting at `$<firstParam>`, never spliced.
 */
export function metadataWhereSql(
  conditions: MetadataCondition[],
  column: string,
  firstParam: number,
): SqlFragment {
  const parts: string[] = [];
  const params: unknown[] = [];
  const p = (value: unknown) => {
    params.push(value);
    return `$${firstParam + params.length - 1}`;
  };
  for (const c of conditions) {
    const field = `${column} -> ${p(c.field)}::text`;
    if (c.op === '$in') {
      const values = (c.value as Array<string | number>).map((v) => JSON.stringify(v));
      parts.push(`${field} = ANY(${p(values)}::jsonb[])`);
    } else if (c.op === '$nin') {
      // As $ne: a document without the field holds none of the values.
      const values = p((c.value as Array<string | number>).map((v) => JSON.stringify(v)));
      parts.push(`(${field} IS NULL OR NOT (${field} = ANY(${values}::jsonb[])))`);
    } else if (c.op === '$eq') {
      parts.push(`${field} = ${p(JSON.stringify(c.value))}::jsonb`);
    } else if (c.op === '$ne') {
      const value = p(JSON.stringify(c.value));
      parts.push(`(${field} IS NULL OR ${field} <> ${value}::jsonb)`);
    } else {
      parts.push(
        `(jsonb_typeof(${field}) = 'number' AND (${column} ->> ${p(c.field)}::text)::float8 ${SQL_OP[c.op]} ${p(c.value)}::float8)`,
      );
    }
  }
  return { sql: parts.join(' AND '), params };
}
