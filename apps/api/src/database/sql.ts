import { postgresPool } from '@kbqa/store-postgres';
import type { DataSource } from 'typeorm';

/** Whether the data source is the PostgreSQL one (KBQA_DATABASE_URL) rather than the SQLite file. */
export function onPostgres(dataSource: DataSource): boolean {
  return dataSource.options.type === 'postgres';
}

/**
 * Runs SQL written with `?` placeholders on either store: PostgreSQL numbers its parameters
 * (`$1, $2, …`), SQLite takes them in order. The statements it is used for hold no `?` of their
 * own (no literal, no JSON path), which the numbering would misread.
 */
export function runSql<T>(dataSource: DataSource, sql: string, params: readonly unknown[] = []): Promise<T> {
  return dataSource.query<T>(onPostgres(dataSource) ? numberedParameters(sql) : sql, [...params]);
}

export function numberedParameters(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * {@link runSql} for a statement a chat runs every time: on PostgreSQL it is named, so each
 * connection of the pool parses and plans it once instead of on every chat (parsing and planning
 * were most of the taught-answer match's cost). `name` must stand for this one statement text.
 */
export async function runNamedSql<T>(
  dataSource: DataSource,
  name: string,
  sql: string,
  params: readonly unknown[] = [],
): Promise<T[]> {
  if (!onPostgres(dataSource)) return dataSource.query<T[]>(sql, [...params]);
  const { rows } = await postgresPool(dataSource).query({
    name,
    text: numberedParameters(sql),
    values: [...params],
  });
  return rows as T[];
}
