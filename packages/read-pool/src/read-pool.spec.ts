import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { ExtractiveAnswerGenerator } from '@kbqa/answer';
import { type ChunkDraft, type SearchQuery, sha256Hex } from '@kbqa/core';
import { readDocsCorpusFile } from '@kbqa/core/testing';
import { openDataSource, rawDatabase, SqliteChunkIndex } from '@kbqa/store-sqlite';
import { PooledExtractiveAnswerGenerator, ReadPool } from './read-pool';

const PAGES = ['reference/hooks.md', 'reference/decorators.md', 'reference/logging.md', 'guides/testing.md'];

/** A page as paragraphs, one chunk each: enough text for ranking and answers to mean something. */
function chunks(page: string): ChunkDraft[] {
  return readDocsCorpusFile(page)
    .split(/\n\s*\n/)
    .filter((p) => p.trim().length > 40)
    .map((content, ordinal) => ({
      ordinal,
      content,
      headingPath: [page],
      title: page,
      link: `https://docs.example/${page}#${ordinal}`,
      kind: 'content',
      contentHash: sha256Hex(content),
    }));
}

describe(ReadPool.name, () => {
  let dir: string;
  let ds: Awaited<ReturnType<typeof openDataSource>>;
  let index: SqliteChunkIndex;
  let pool: ReadPool | undefined;

  const query = (text: string): SearchQuery => ({
    projectId: 1,
    text,
    topK: 5,
    filters: [],
    mode: 'lexical',
  });
  const put = (source: string, drafts: ChunkDraft[]) =>
    index.replaceSource({
      projectId: 1,
      source,
      kind: 'documents',
      documents: [{ document: { source, content: 'x' }, chunks: drafts }],
    });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kbqa-read-pool-'));
    ds = await openDataSource({ file: join(dir, 'kbqa.sqlite') });
    index = new SqliteChunkIndex(rawDatabase(ds));
    rawDatabase(ds).prepare("INSERT INTO projects (name, created_at) VALUES ('p', 'now')").run();
    for (const page of PAGES) put(page, chunks(page));
  });
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
    await ds.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the same hits, in the same order and with the same scores, as the store in process', async () => {
    pool = await ReadPool.start({ file: join(dir, 'kbqa.sqlite'), workers: 2 });
    const questions = [
      'How do I add a hook?',
      'What does decorate do?',
      'how to change the log level',
      'inject',
    ];
    for (const q of questions) {
      const own = await index.search(query(q));
      expect(own.length).toBeGreaterThan(0);
      expect(await pool.search(query(q))).toEqual(own);
    }
  });

  it('composes the same answer pieces as the extractive generator in process', async () => {
    pool = await ReadPool.start({ file: join(dir, 'kbqa.sqlite'), workers: 1 });
    const q = 'How do I add a hook?';
    const sources = (await index.search(query(q))).map((h, i) => ({ ...h, n: i + 1 }));
    const pieces = await pool.compose(q, sources);
    expect(pieces.join('')).toMatch(/Hooks .*\[\d\]/);
    expect(pieces).toEqual(new ExtractiveAnswerGenerator().composePieces(q, sources));
  });

  it("composes with the question's words the project never uses, as the generator in process does", async () => {
    pool = await ReadPool.start({ file: join(dir, 'kbqa.sqlite'), workers: 1 });
    const q = 'How do I add a hook with PM2?';
    const sources = (await index.search(query(q))).map((h, i) => ({ ...h, n: i + 1 }));
    const pieces = await pool.compose(q, sources, undefined, ['PM2']);
    expect(pieces.join('')).toMatch(/^I couldn't find this in the documentation/);
    expect(pieces).toEqual(new ExtractiveAnswerGenerator().composePieces(q, sources, undefined, ['PM2']));
  });

  it('composes with the heading path of a source, which names the section a continued passage is in', async () => {
    pool = await ReadPool.start({ file: join(dir, 'kbqa.sqlite'), workers: 1 });
    const q = 'Which option answers 503 when the handler takes too long?';
    const sources = [
      {
        n: 1,
        title: 'Server',
        link: 'https://docs.example/server',
        score: 0.5,
        headingPath: ['Factory', '`handlerTimeout`'],
        content: [
          'routes cannot opt out of it, they can only override it with another value.',
          '',
          'Fastify answers with a 503 error when the time runs out before the handler replies.',
        ].join('\n'),
      },
    ];
    const pieces = await pool.compose(q, sources);
    expect(pieces.join('')).toMatch(/^`handlerTimeout`: Fastify answers/);
    expect(pieces).toEqual(new ExtractiveAnswerGenerator().composePieces(q, sources));
  });

  it('sees a write committed by the service connection on its next search', async () => {
    pool = await ReadPool.start({ file: join(dir, 'kbqa.sqlite'), workers: 2 });
    expect(await pool.search(query('zanzibarite'))).toEqual([]);
    const text = 'Zanzibarite is the mineral the kbqa tests write after the pool opened.';
    put('late.md', [{ ...chunks(PAGES[0]!)[0]!, content: text, contentHash: sha256Hex(text) }]);
    // Both workers: the next two requests go to different ones.
    const [a, b] = await Promise.all([pool.search(query('zanzibarite')), pool.search(query('zanzibarite'))]);
    expect(a.map((h) => h.content)).toEqual([text]);
    expect(b.map((h) => h.content)).toEqual([text]);
  });

  it('sends a store error back as the same KbqaError', async () => {
    pool = await ReadPool.start({ file: join(dir, 'kbqa.sqlite'), workers: 1 });
    // A dense query without a vector is refused by the store itself.
    const own: unknown = await index.search({ ...query('hooks'), mode: 'dense' }).catch((e: unknown) => e);
    expect(own).toMatchObject({ name: 'KbqaError' });
    const { code, message } = own as { code: string; message: string };
    await expect(pool.search({ ...query('hooks'), mode: 'dense' })).rejects.toMatchObject({
      name: 'KbqaError',
      code,
      message,
    });
  });

  it('ends its workers on close, and refuses requests after', async () => {
    pool = await ReadPool.start({ file: join(dir, 'kbqa.sqlite'), workers: 2 });
    expect(pool.size).toBe(2);
    const inFlight = pool.search(query('hooks'));
    await pool.close();
    expect(pool.size).toBe(0);
    await inFlight.catch(() => undefined);
    await expect(pool.search(query('hooks'))).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('replaces a worker that dies while the pool is open; searches go on', async () => {
    pool = await ReadPool.start({ file: join(dir, 'kbqa.sqlite'), workers: 2 });
    const workers = (pool as unknown as { workers: Array<{ thread: Worker; exited: Promise<void> }> })
      .workers;
    const dead = workers[0]!;
    await dead.thread.terminate();
    await dead.exited;
    const deadline = Date.now() + 10_000;
    while (pool.size < 2 || workers.includes(dead)) {
      if (Date.now() > deadline) throw new Error(`no replacement: ${pool.size} workers`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const own = await index.search(query('hooks'));
    const [a, b] = await Promise.all([pool.search(query('hooks')), pool.search(query('hooks'))]);
    expect(a).toEqual(own);
    expect(b).toEqual(own);
  });

  it('composes on the calling thread when the pool has no worker left', async () => {
    pool = await ReadPool.start({ file: join(dir, 'kbqa.sqlite'), workers: 1 });
    const generator = new PooledExtractiveAnswerGenerator(pool);
    await pool.close();
    const q = 'How do I add a hook?';
    const sources = (await index.search(query(q))).map((h, i) => ({ ...h, n: i + 1 }));
    const pieces: string[] = [];
    for await (const piece of generator.generate({
      question: q,
      sources,
      history: [],
      signal: new AbortController().signal,
    }))
      pieces.push(piece);
    expect(pieces).toEqual(new ExtractiveAnswerGenerator().composePieces(q, sources));
  });

  it('passes each term score list a worker loads to the others, which then hold the same entries', async () => {
    pool = await ReadPool.start({ file: join(dir, 'kbqa.sqlite'), workers: 2 });
    expect((await pool.stats()).map((s) => s.termCacheEntries)).toEqual([0, 0]);
    // One search at a time goes to the first worker: only it loads the lists.
    const own = await index.search(query('How do I add a hook to the request lifecycle?'));
    expect(await pool.search(query('How do I add a hook to the request lifecycle?'))).toEqual(own);
    const deadline = Date.now() + 5_000;
    let entries = (await pool.stats()).map((s) => s.termCacheEntries);
    while (entries[1] !== entries[0] && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      entries = (await pool.stats()).map((s) => s.termCacheEntries);
    }
    expect(entries[0]).toBeGreaterThan(0);
    expect(entries[1]).toBe(entries[0]);
    // A write moves the generation: the adopted lists are dropped on the next search, and the
    // second worker answers from fresh ones, like the store in process.
    put('extra', chunks('reference/hooks.md').slice(0, 2));
    const two = await Promise.all([
      pool.search(query('hook lifecycle')),
      pool.search(query('hook lifecycle')),
    ]);
    const fresh = await index.search(query('hook lifecycle'));
    expect(two).toEqual([fresh, fresh]);
  });

  it('has its warming worker reload, once writes pause, the lists a write dropped, for every worker', async () => {
    pool = await ReadPool.start({ file: join(dir, 'kbqa.sqlite'), workers: 2 });
    const generation = () =>
      (rawDatabase(ds).prepare('SELECT n FROM chunk_generation WHERE id = 1').get() as { n: number }).n;
    const waitFor = async (done: (stats: Awaited<ReturnType<ReadPool['stats']>>) => boolean) => {
      const deadline = Date.now() + 10_000;
      let stats = await pool!.stats();
      while (!done(stats) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        stats = await pool!.stats();
      }
      return stats;
    };
    const q = query('How do I add a hook to the request lifecycle?');
    await pool.search(q);
    const before = await waitFor(
      (s) => s[0]!.termCacheEntries > 0 && s[1]!.termCacheEntries === s[0]!.termCacheEntries,
    );
    expect(before.map((s) => s.termListsGeneration)).toEqual([generation(), generation()]);
    put('extra', chunks('reference/hooks.md').slice(0, 2));
    const now = generation();
    // Nobody searches: the warming worker reloads the lists after the pause, the other adopts them.
    const after = await waitFor((s) =>
      s.every((w) => w.termListsGeneration === now && w.termCacheEntries > 0),
    );
    expect(after.map((s) => s.termListsGeneration)).toEqual([now, now]);
    expect(after[0]!.termCacheEntries).toBe(after[1]!.termCacheEntries);
    expect(after[0]!.termCacheEntries).toBeGreaterThan(0);
    expect(await pool.search(q)).toEqual(await index.search(q));
  });

  describe('checkpoints on a thread of their own', () => {
    /**
     * Writes 40 commits of about 64 KB on the service connection with its own checkpoints off,
     * pausing between them as chat traffic does; returns the largest WAL file size seen.
     */
    async function writeWithoutOwnCheckpoints(): Promise<number> {
      const db = rawDatabase(ds);
      db.pragma('wal_autocheckpoint = 0');
      db.exec('CREATE TABLE IF NOT EXISTS filler (text TEXT)');
      const insert = db.prepare('INSERT INTO filler (text) VALUES (?)');
      let largest = 0;
      for (let i = 0; i < 40; i++) {
        insert.run('x'.repeat(64 * 1024));
        largest = Math.max(largest, statSync(join(dir, 'kbqa.sqlite-wal')).size);
        await new Promise((r) => setTimeout(r, 40));
      }
      return largest;
    }

    /** A pool whose thread checkpoints from 64 pages (256 KB) on, and what it tells the writer. */
    async function startCheckpointing(): Promise<[ReadPool, boolean[]]> {
      const told: boolean[] = [];
      pool = await ReadPool.start({
        file: join(dir, 'kbqa.sqlite'),
        workers: 1,
        checkpointEveryMs: 20,
        checkpointFromPages: 64,
        onCheckpointer: (running) => told.push(running),
      });
      return [pool, told];
    }

    it('keeps the WAL from growing while the writer leaves checkpoints to it', async () => {
      const [started, told] = await startCheckpointing();
      expect(started.checkpointing).toBe(true);
      expect(told).toEqual([true]);
      // 40 commits of 64 KB are 2.5 MB of WAL unless something checkpoints between them (here
      // from 64 pages, 256 KB, on).
      expect(await writeWithoutOwnCheckpoints()).toBeLessThan(1024 * 1024);
      await started.close();
      expect(told).toEqual([true, false]);
    });

    it('without it the same writes grow the WAL (the control of the test above)', async () => {
      pool = await ReadPool.start({ file: join(dir, 'kbqa.sqlite'), workers: 1 });
      expect(pool.checkpointing).toBe(false);
      expect(await writeWithoutOwnCheckpoints()).toBeGreaterThan(2 * 1024 * 1024);
    });

    it("leaves a WAL below SQLite's own 1000 pages alone, as SQLite's automatic checkpoint does", async () => {
      pool = await ReadPool.start({ file: join(dir, 'kbqa.sqlite'), workers: 1, checkpointEveryMs: 20 });
      expect(pool.checkpointing).toBe(true);
      // 2.5 MB of WAL is under 1000 pages of 4 KB: the files take the room they took before.
      expect(await writeWithoutOwnCheckpoints()).toBeGreaterThan(2 * 1024 * 1024);
    });

    it('replaces a checkpoint thread that dies, telling the writer both times', async () => {
      const [started, told] = await startCheckpointing();
      const dead = (started as unknown as { checkpointer: { thread: Worker; exited: Promise<void> } })
        .checkpointer;
      await dead.thread.terminate();
      await dead.exited;
      const deadline = Date.now() + 10_000;
      while (told.length < 3) {
        if (Date.now() > deadline) throw new Error(`no replacement: ${JSON.stringify(told)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(told).toEqual([true, false, true]);
      expect(started.checkpointing).toBe(true);
    });
  });

  it('refuses to start on a missing database file', async () => {
    await expect(ReadPool.start({ file: join(dir, 'missing.sqlite'), workers: 1 })).rejects.toThrow();
  });
});
