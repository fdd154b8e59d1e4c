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
