import { existsSync } from 'node:fs';
import { KbqaError } from '@kbqa/core';
import { copySqliteToPostgres, recordPoolConfig, type CopyResult } from '@kbqa/store-postgres';
import { openDataSource, rawDatabase } from '@kbqa/store-sqlite';
import { Pool } from 'pg';
import { UsageError } from './cli-args';
import { type AppConfig, parseDatabaseUrl } from './config/config';

/**
 * `kbqa store copy --to <postgres-url>`: the data directory's SQLite deployment (records, chunks
 * and vectors) into an empty PostgreSQL database, ids kept, in one transaction. Progress goes to
 * stderr, one line per table; the summary to stdout.
 */
export async function storeCommand(
  config: AppConfig,
  action: string | undefined,
  flags: Map<string, string | true>,
): Promise<{ text: string; json: unknown }> {
  if (action !== 'copy') throw new UsageError(`unknown command: store ${action ?? ''}`.trim());
  const to = flags.get('to');
  if (typeof to !== 'string') throw new UsageError('store copy needs --to <postgres://user@host:5432/db>');
  let url: string | undefined;
  try {
    url = parseDatabaseUrl(to);
  } catch {
    url = undefined;
  }
  if (url === undefined) {
    throw new UsageError('--to must be a PostgreSQL URL such as postgres://user:password@host:5432/kbqa');
  }
  // The source is always the directory's file; opening a missing one would copy a new, empty one.
  if (!existsSync(config.databaseFile)) {
    throw new KbqaError(
      'NOT_FOUND',
      `no SQLite database at ${config.databaseFile}: set KBQA_DATA_DIR to the data directory of the deployment to copy`,
    );
  }
  const target = redacted(url);
  const dataSource = await openDataSource({ file: config.databaseFile });
  const pool = new Pool({ ...recordPoolConfig(url), max: 1 });
  // An idle connection the server closes would otherwise be an uncaught error.
  pool.on('error', () => undefined);
  try {
    process.stderr.write(`kbqa store copy: ${config.databaseFile} → ${target}\n`);
    const result = await copySqliteToPostgres(rawDatabase(dataSource), pool, {
      onProgress: ({ table, rows }) => process.stderr.write(`kbqa store copy: ${table}: ${rows} row(s)\n`),
    });
    return {
      text: summary(config.databaseFile, target, result),
      json: {
        from: config.databaseFile,
        to: target,
        tables: Object.fromEntries(result.tables.map((t) => [t.table, t.rows])),
        vectors: vectorsJson(result.vectors),
      },
    };
  } finally {
    await pool.end();
    await dataSource.destroy();
  }
}

function summary(file: string, target: string, result: CopyResult): string {
  const rows = result.tables.reduce((n, t) => n + t.rows, 0);
  const v = result.vectors;
  const vectors =
    v.status === 'copied'
      ? `vectors: ${v.rows} copied as stored (${v.embedderId}, ${v.dimension} dimensions), not recomputed`
      : v.status === 'none'
        ? 'vectors: none in the SQLite store (lexical retrieval only there too)'
        : `vectors: ${v.rows} of ${v.embedderId} NOT copied: the target has no pgvector extension, so the copy is ` +
          `lexical-only there; they stay in ${file}. Install pgvector and copy into a new database, or run ` +
          '`kbqa reindex` against it once pgvector is there.';
  return [
    `copied ${rows} row(s) from ${file} to ${target}:`,
    ...result.tables.map((t) => `  ${t.table}\t${t.rows}`),
    vectors,
    'Point the service, its workers and every kbqa command at it with KBQA_DATABASE_URL.',
  ].join('\n');
}

function vectorsJson(v: CopyResult['vectors']) {
  switch (v.status) {
    case 'copied':
      return { status: v.status, embedder_id: v.embedderId, dimension: v.dimension, copied: v.rows };
    case 'none':
      return { status: v.status, copied: 0 };
    case 'no-pgvector':
      return { status: v.status, embedder_id: v.embedderId, copied: 0, not_copied: v.rows };
  }
}

/** The URL without its password, for output. */
function redacted(url: string): string {
  const u = new URL(url);
  if (u.password !== '') u.password = '***';
  return u.toString();
}
