import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openDataSource, rawDatabase } from './data-source';

const run = promisify(execFile);
const DIST = join(__dirname, '..', 'dist', 'index.js');

/**
 * One writer process: opens the store on the shared file (migrations included) and mixes every
 * kind of write the service does: chunk replacement in batches (raw better-sqlite3 transactions),
 * source deletion, TypeORM saves (read-then-write transactions) and vector storage. Prints one JSON
 * line with the errors it met.
 */
const WRITER = `
const { openDataSource, rawDatabase, SqliteChunkIndex, SqliteRequestRecords, ProjectEntity } = require(${JSON.stringify(DIST)});
const crypto = require('node:crypto');
const [file, name, rounds] = process.argv.slice(2);
const draft = (content, ordinal) => ({ ordinal, content, headingPath: [], title: 'T', link: 'L', kind: 'content',
  contentHash: crypto.createHash('sha256').update(content).digest('hex') });
(async () => {
  const errors = [];
  const ds = await openDataSource({ file });
  const index = new SqliteChunkIndex(rawDatabase(ds));
  const projects = ds.getRepository(ProjectEntity);
  const records = new SqliteRequestRecords(rawDatabase(ds));
  for (let i = 0; i < Number(rounds); i++) {
    const attempt = async (what, fn) => {
      try { await fn(); } catch (e) { errors.push(what + ': ' + (e && e.message)); }
    };
    await attempt('replaceSources', () => index.replaceSources(Array.from({ length: 5 }, (_, j) => ({
      projectId: 1, source: 'shared/' + ((i + j) % 7), kind: 'documents',
      documents: [{ document: { source: 'shared/' + j, content: 'x' },
        chunks: [draft(name + ' round ' + i + ' writes about hooks and plugins ' + j, 0)] }],
    }))));
    await attempt('deleteSource', () => index.deleteSource(1, 'shared/' + (i % 7)));
    await attempt('project save', async () => {
      const p = await projects.findOneByOrFail({ id: 1 });
      p.name = name + '-' + i;
      await projects.save(p);
    });
    await attempt('conversation save', async () => records.createConversation(1, null));
  }
  await ds.destroy();
  process.stdout.write(JSON.stringify({ errors }) + '\\n');
})().catch((e) => { process.stdout.write(JSON.stringify({ errors: ['open: ' + e.message] }) + '\\n'); });
`;

// Several Node processes start and write: seconds on a loaded two-core machine.
jest.setTimeout(120_000);

describe('SQLite store shared by several processes', () => {
  let dir: string;
  let script: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kbqa-multiproc-'));
    script = join(dir, 'writer.js');
    writeFileSync(script, WRITER);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const writers = async (file: string, count: number, rounds: number): Promise<string[]> => {
    const outputs = await Promise.all(
      Array.from({ length: count }, (_, n) =>
        run(process.execPath, [script, file, `writer${n}`, String(rounds)], { timeout: 120_000 }),
      ),
    );
    return outputs.flatMap(({ stdout }) => (JSON.parse(stdout) as { errors: string[] }).errors);
  };

  it('lets concurrent writer processes all succeed: no "database is locked"', async () => {
    const file = join(dir, 'kbqa.sqlite');
    const ds = await openDataSource({ file });
    rawDatabase(ds).prepare("INSERT INTO projects (name, created_at) VALUES ('p', 'now')").run();
    await ds.destroy();

    expect(await writers(file, 6, 40)).toEqual([]);

    const check = await openDataSource({ file });
    try {
      const db = rawDatabase(check);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      // Every chunk row still has its FTS row: no write was half applied.
      const counts = db
        .prepare('SELECT (SELECT count(*) FROM chunks) AS chunks, (SELECT count(*) FROM chunks_fts) AS fts')
        .get() as { chunks: number; fts: number };
      expect(counts.fts).toBe(counts.chunks);
      expect((db.prepare('SELECT count(*) AS n FROM conversations').get() as { n: number }).n).toBe(6 * 40);
    } finally {
      await check.destroy();
    }
  });

  it('migrates a new database once when several processes open it at the same moment', async () => {
    const file = join(dir, 'fresh.sqlite');
    // Each writer opens (and so migrates) the empty file itself; the project row comes from the first.
    const seed = `
      const { openDataSource, rawDatabase } = require(${JSON.stringify(DIST)});
      openDataSource({ file: ${JSON.stringify(file)} }).then(async (ds) => {
        rawDatabase(ds).prepare("INSERT OR IGNORE INTO projects (id, name, created_at) VALUES (1, 'p', 'now')").run();
        await ds.destroy();
        process.stdout.write('{"errors":[]}\\n');
      }).catch((e) => process.stdout.write(JSON.stringify({ errors: ['open: ' + e.message] }) + '\\n'));`;
    const seedScript = join(dir, 'seed.js');
    writeFileSync(seedScript, seed);
    const opened = await Promise.all(
      Array.from({ length: 6 }, () => run(process.execPath, [seedScript], { timeout: 120_000 })),
    );
    expect(opened.flatMap(({ stdout }) => (JSON.parse(stdout) as { errors: string[] }).errors)).toEqual([]);
    expect(await writers(file, 3, 5)).toEqual([]);
  });
});
