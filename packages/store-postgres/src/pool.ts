import { types, type CustomTypesConfig, type Pool, type PoolConfig } from 'pg';

const INT8_OID = 20;
const TIMESTAMPTZ_OID = 1184;

/**
 * How the API's connections read values, so that rows look as they do from SQLite: `count(*)`,
 * `sum()` and bigint task ids as numbers (task ids stay below 2^48, counts far below 2^53), and
 * the chunk store's timestamptz columns as stored text (`YYYY-MM-DD HH:MM:SS.ffffff`, UTC, the
 * form toIsoUtc reads) rather than Date objects. Per pool, not pg's global parsers.
 */
export const RECORD_TYPES: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary' && oid === INT8_OID) return (value: string) => Number(value);
    if (format !== 'binary' && oid === TIMESTAMPTZ_OID) return storedTimestamp;
    return types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
  }) as CustomTypesConfig['getTypeParser'],
};

/** Connection settings of the API's pool: UTC sessions (see RECORD_TYPES) and its type parsers. */
export function recordPoolConfig(url: string): PoolConfig {
  return { connectionString: url, types: RECORD_TYPES, options: '-c TimeZone=UTC' };
}

/** A timestamptz as PostgreSQL prints it in a UTC session, without its `+00` offset. */
function storedTimestamp(value: string): string {
  const utc = /^(.*?)\+00(?::00)?$/.exec(value);
  if (utc) return utc[1]!;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString().slice(0, 23).replace('T', ' ');
}

/**
 * The node-postgres pool under a TypeORM `postgres` data source, so the chunk store and the
 * request records share the records' connections (typed structurally: this package does not
 * depend on TypeORM).
 */
export function postgresPool(dataSource: { driver: unknown }): Pool {
  return (dataSource.driver as { master: Pool }).master;
}
