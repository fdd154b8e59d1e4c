import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { ChunkDraft, LoadedDocument } from '../documents';
import type { FilterOperator, FilterScalar } from '../filters';
import { sha256Hex } from '../hash';
import { ANSWER_FLOOR } from '../relevance';
import type { SearchHit } from '../retrieval';
import type { ChunkStore, PendingChunk, ReplaceSourceInput, SourceKind } from '../store';
import { FakeEmbedder } from './fake-embedder';

/** One empty store for one test, with two projects it may write to. */
export interface ChunkStoreContractFixture {
  store: ChunkStore;
  projects: [number, number];
  teardown(): Promise<void>;
}

export interface ChunkStoreContractOptions {
  /**
   * False for a store without vector support (PostgreSQL without pgvector): the vector cases are
   * skipped, visibly, and the lexical-only cases run instead.
   */
  vectors: boolean;
  /** Milliseconds for each case; a networked store on a loaded machine needs more than jest's default. */
  timeoutMs?: number;
}

/** A chunk draft whose hash follows its content, as the chunker makes them. */
export function contractDraft(content: string, ordinal = 0, extra: Partial<ChunkDraft> = {}): ChunkDraft {
  return {
    ordinal,
    content,
    headingPath: [],
    title: 'T',
    link: 'https://docs.example/page',
    kind: 'content',
    contentHash: sha256Hex(content),
    ...extra,
  };
}

function input(
  projectId: number,
  source: string,
  chunks: ChunkDraft[],
  extra: { kind?: SourceKind; metadata?: LoadedDocument['metadata']; indexId?: number } = {},
): ReplaceSourceInput {
  return {
    projectId,
    source,
    kind: extra.kind ?? 'documents',
    indexId: extra.indexId,
    documents: [
      {
        document: { source, content: chunks.map((c) => c.content).join('\n'), metadata: extra.metadata },
        chunks,
      },
    ],
  };
}

/**
 * A small documentation site (Tidepool, the fictional framework of fixtures/docs-corpus) whose
 * questions each have one right page, so ranking can be checked on any store.
 */
const SITE: Array<{ source: string; title: string; headings: string[]; content: string }> = [
  {
    source: 'guides/installation.md',
    title: 'Installation',
    headings: ['Installation'],
    content: 'Install Tidepool with `npm install tidepool`. Tidepool needs Node.js 20 or later.',
  },
  {
    source: 'reference/hooks.md',
    title: 'Hooks',
    headings: ['Hooks', 'onRequest'],
    content:
      'The onRequest hook runs before the body is parsed. Register hooks with `app.addHook(name, fn)`; ' +
      'a hook may reply early, which skips the handler.',
  },
  {
    source: 'reference/logging.md',
    title: 'Logging',
    headings: ['Logging'],
    content:
      'Tidepool logs with pino. Set the log level with the `logger.level` option; redact secrets with `logger.redact`.',
  },
  {
    source: 'guides/deployment.md',
    title: 'Deployment',
    headings: ['Deployment', 'Behind a proxy'],
    content:
      'Behind nginx, set `trustProxy: true` so the client address comes from X-Forwarded-For. ' +
      '```nginx\nlocation / { proxy_pass http://127.0.0.1:3000; }\n```',
  },
  {
    source: 'reference/errors.md',
    title: 'Errors',
    headings: ['Errors', 'Error handler'],
    content:
      'Set a custom error handler with `app.setErrorHandler(fn)`. Errors thrown in a handler reach it with the request and reply.',
  },
];

async function loadSite(store: ChunkStore, projectId: number): Promise<void> {
  await store.replaceSources(
    SITE.map((page) =>
      input(projectId, page.source, [
        contractDraft(page.content, 0, {
          title: page.title,
          headingPath: page.headings,
          link: `https://docs.example/${page.source}`,
        }),
      ]),
    ),
  );
}

const sources = (hits: SearchHit[]) => hits.map((h) => h.source);

/**
 * The behaviour every ChunkStore (and its VectorStore) shares, so the SQLite and PostgreSQL
 * stores cannot drift: source replacement and deletion, counts, index bookkeeping, lexical
 * ranking and relevance, `where` filters, project isolation, vectors and hybrid search, and the
 * embedder binding. `setup` makes an empty store for each case.
 */
export function describeChunkStoreContract(
  name: string,
  setup: () => Promise<ChunkStoreContractFixture>,
  options: ChunkStoreContractOptions,
): void {
  describe(`${name} (ChunkStore contract)`, () => {
    let fixture: ChunkStoreContractFixture;
    let store: ChunkStore;
    let p1: number;
    let p2: number;
    beforeEach(async () => {
      fixture = await setup();
      store = fixture.store;
      [p1, p2] = fixture.projects;
    }, options.timeoutMs);
    afterEach(() => fixture.teardown(), options.timeoutMs);
    const t = options.timeoutMs;
    const withVectors = options.vectors ? it : it.skip;
    const lexicalOnly = options.vectors ? it.skip : it;

    describe('sources', () => {
      it(
        'replaces a source in place: same id, no duplicate chunks, old text no longer found',
        async () => {
          const [first] = await store.replaceSources([
            input(p1, 's', [contractDraft('alpha beta'), contractDraft('gamma', 1)]),
          ]);
          // chunkIds follow the order of the chunks given.
          const gamma = await store.search({ projectId: p1, text: 'gamma', topK: 5, mode: 'lexical' });
          expect(gamma.map((h) => h.chunkId)).toEqual([first!.chunkIds[1]]);
          const [second] = await store.replaceSources([input(p1, 's', [contractDraft('delta epsilon')])]);
          expect(second!.sourceId).toBe(first!.sourceId);
          expect(second!.chunkIds).toHaveLength(1);
          expect(await store.countChunks(p1)).toBe(1);
          expect(await store.search({ projectId: p1, text: 'gamma', topK: 5, mode: 'lexical' })).toEqual([]);
          expect(
            sources(await store.search({ projectId: p1, text: 'epsilon', topK: 5, mode: 'lexical' })),
          ).toEqual(['s']);
        },
        t,
      );

      it(
        'reports the words no chunk of the project has, read as the index reads them',
        async () => {
          await store.replaceSources([
            input(p1, 'a', [contractDraft('Run several servers behind a proxy with `trustProxy`.')]),
            input(p2, 'b', [contractDraft('Deploy with PM2 in cluster mode.')]),
          ]);
          // "servers" is found by "server" (stemmed as the index does); PM2 and cluster are in
          // the other project only; punctuation is never reported.
          expect(
            await store.absentWords(p1, ['server', 'PM2', 'proxy', 'cluster', 'trustProxy', '?!']),
          ).toEqual(['PM2', 'cluster']);
          expect(await store.absentWords(p2, ['pm2', 'proxy'])).toEqual(['proxy']);
          expect(await store.absentWords(p1, [])).toEqual([]);
        },
        t,
      );

      it(
        'replaces several sources in one call, each once',
        async () => {
          const results = await store.replaceSources([
            input(p1, 'a', [contractDraft('one'), contractDraft('two', 1)]),
            input(p1, 'b', [contractDraft('three')]),
          ]);
          expect(results.map((r) => r.chunkIds.length)).toEqual([2, 1]);
          expect(await store.countChunks(p1)).toBe(3);
        },
        t,
      );

      it(
        'deletes a source by name or by a link one of its chunks cites, with its chunks',
        async () => {
          const video = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';
          await store.replaceSources([
            input(p1, video, [
              contractDraft('intro', 0, { link: `${video}&t=0s` }),
              contractDraft('later', 1, { link: `${video}&t=95s` }),
            ]),
            input(p1, 'other', [contractDraft('alpha')]),
          ]);
          expect(await store.deleteSource(p1, `${video}&t=95s`)).toBe(1);
          expect(await store.deleteSource(p1, `${video}&t=95s`)).toBe(0);
          expect(await store.deleteSource(p1, 'other')).toBe(1);
          expect(await store.countChunks(p1)).toBe(0);
          expect(await store.search({ projectId: p1, text: 'alpha', topK: 5, mode: 'lexical' })).toEqual([]);
        },
        t,
      );

      it(
        'keeps taught sources when deleting all sources of a project',
        async () => {
          await store.replaceSources([
            input(p1, 'a', [contractDraft('a')]),
            input(p1, 'faq', [contractDraft('q')], { kind: 'teach' }),
          ]);
          expect(await store.deleteAllSources(p1)).toBe(1);
          expect((await store.listSources(p1)).map((s) => s.source)).toEqual(['faq']);
        },
        t,
      );

      it(
        'lists sources in insertion order with kind and an ISO 8601 date with offset',
        async () => {
          await store.replaceSources([
            input(p1, 'b', [contractDraft('x')]),
            input(p1, 'a', [contractDraft('y')], { kind: 'url' }),
          ]);
          const listed = await store.listSources(p1);
          expect(listed.map((s) => [s.source, s.kind])).toEqual([
            ['b', 'documents'],
            ['a', 'url'],
          ]);
          for (const s of listed) {
            expect(s.dateAdded).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
            expect(Math.abs(Date.parse(s.dateAdded) - Date.now())).toBeLessThan(10 * 60_000);
          }
        },
        t,
      );

      it(
        'keeps index bookkeeping: index sources, versions, keepSource, counts, deletion by id',
        async () => {
          await store.replaceSources([
            {
              ...input(p1, 'x', [contractDraft('x')], { indexId: 7 }),
              version: { etag: 'e1' },
              contentHash: 'h1',
            },
            input(p1, 'y', [contractDraft('y')], { indexId: 7 }),
            input(p1, 'z', [contractDraft('z')]),
          ]);
          const listed = await store.indexSources(p1, 7);
          expect(listed.map((s) => [s.source, s.contentHash, s.version])).toEqual([
            ['x', 'h1', { etag: 'e1' }],
            ['y', null, {}],
          ]);
          const z = (await store.listSources(p1)).find((s) => s.source === 'z')!;
          await store.keepSource(z.id, 7, { lastmod: '2024-01-01' });
          await store.keepSource(listed[0]!.id, 7, undefined);
          const after = await store.indexSources(p1, 7);
          expect(after.map((s) => [s.source, s.version])).toEqual([
            ['x', { etag: 'e1' }],
            ['y', {}],
            ['z', { lastmod: '2024-01-01' }],
          ]);
          expect([...(await store.countIndexSources(p1))]).toEqual([[7, 3]]);
          expect(await store.deleteSourcesById(p2, [z.id])).toBe(0);
          expect(await store.deleteSourcesById(p1, [z.id, listed[1]!.id])).toBe(2);
          expect(await store.countChunks(p1)).toBe(1);
        },
        t,
      );

      it(
        'counts chunks per project and leaves other projects alone',
        async () => {
          await store.replaceSources([
            input(p1, 's', [contractDraft('shared words here'), contractDraft('more', 1)]),
          ]);
          await store.replaceSources([input(p2, 's', [contractDraft('shared words there')])]);
          expect(await store.countChunks(p1)).toBe(2);
          expect(await store.countChunks(p2)).toBe(1);
          const hits = await store.search({ projectId: p2, text: 'shared words', topK: 5, mode: 'lexical' });
          expect(hits.map((h) => h.content)).toEqual(['shared words there']);
          expect(await store.deleteSource(p1, 's')).toBe(1);
          expect(await store.deleteAllSources(p1)).toBe(0);
          expect(await store.countChunks(p2)).toBe(1);
          await store.maintain();
        },
        t,
      );
    });

    describe('lexical search', () => {
      beforeEach(() => loadSite(store, p1), t);

      it.each([
        ['How do I install Tidepool?', 'guides/installation.md'],
        ['which hook runs before the body is parsed', 'reference/hooks.md'],
        ['how to set the log level', 'reference/logging.md'],
        ['client address behind nginx proxy', 'guides/deployment.md'],
        ['custom error handler', 'reference/errors.md'],
        ['what does app.setErrorHandler do', 'reference/errors.md'],
      ])(
        'ranks the page that answers "%s" first',
        async (question, page) => {
          const hits = await store.search({ projectId: p1, text: question, topK: 5, mode: 'lexical' });
          expect(hits[0]?.source).toBe(page);
        },
        t,
      );

      it(
        'returns hits with their stored fields and scores in [0, 1] that never rise down the list',
        async () => {
          const hits = await store.search({
            projectId: p1,
            text: 'hook handler reply request',
            topK: 5,
            mode: 'lexical',
          });
          expect(hits.length).toBeGreaterThan(1);
          const scores = hits.map((h) => h.score);
          expect(scores).toEqual([...scores].sort((a, b) => b - a));
          for (const s of scores) expect(s >= 0 && s <= 1).toBe(true);
          const hooks = hits.find((h) => h.source === 'reference/hooks.md')!;
          expect(hooks).toMatchObject({
            title: 'Hooks',
            headingPath: ['Hooks', 'onRequest'],
            link: 'https://docs.example/reference/hooks.md',
          });
        },
        t,
      );

      it(
        'scores an answering page above the answer floor and an unrelated question below it',
        async () => {
          const right = await store.search({
            projectId: p1,
            text: 'How do I install Tidepool?',
            topK: 3,
            mode: 'lexical',
          });
          expect(right[0]!.score).toBeGreaterThanOrEqual(ANSWER_FLOOR);
          const unrelated = await store.search({
            projectId: p1,
            text: 'How do I install a dishwasher drain hose?',
            topK: 3,
            mode: 'lexical',
          });
          for (const hit of unrelated) expect(hit.score).toBeLessThan(ANSWER_FLOOR);
        },
        t,
      );

      it(
        'finds nothing for a question with no word in the index, and nothing in another project',
        async () => {
          expect(
            await store.search({ projectId: p1, text: 'xylophone quartz', topK: 5, mode: 'lexical' }),
          ).toEqual([]);
          expect(
            await store.search({ projectId: p2, text: 'install tidepool', topK: 5, mode: 'lexical' }),
          ).toEqual([]);
        },
        t,
      );

      it(
        "follows another project's writes that leave the chunk count equal: scores use the new document frequencies",
        async () => {
          // Ten chunks of one length in p2, four of them holding the question's word or none:
          // the two states differ only in that word's document frequency, never in the chunk
          // count or the average length, so statistics held by the count would not move.
          const ten = (withWord: number) =>
            Array.from({ length: 10 }, (_, i) =>
              contractDraft(`${i < withWord ? 'pino' : 'sparrow'} notes page ${i}`, i),
            );
          const ask = async () =>
            (await store.search({ projectId: p1, text: 'pino', topK: 1, mode: 'lexical' }))[0]!;
          await store.replaceSources([input(p2, 'before', ten(0))]);
          const rare = await ask();
          expect(rare.source).toBe('reference/logging.md');
          await store.deleteSource(p2, 'before');
          await store.replaceSources([input(p2, 'after', ten(4))]);
          expect(await store.countChunks(p2)).toBe(10);
          const common = await ask();
          expect(common.chunkId).toBe(rare.chunkId);
          expect(common.score).toBeLessThan(rare.score);
          // All of a project's chunks deleted and the first ten written again: the statistics are
          // those of the first state, so is the score (SQLite's FTS5 used to keep deleted rows
          // counted: 0.5828 became 0.6014).
          await store.deleteAllSources(p2);
          await store.replaceSources([input(p2, 'again', ten(0))]);
          expect((await ask()).score).toBeCloseTo(rare.score, 9);
        },
        t,
      );

      it(
        'gives the last place to a section whose opening says what the question asks, when passages sharing more of its words rank above it',
        async () => {
          const filler = 'The server keeps a queue of pending work and drains it in order before it stops.';
          const chunks = [
            ...[0, 1, 2, 3].map((i) =>
              contractDraft(
                `Reply notes ${i}: a reply already sent is sent again when the reply is retried; sent replies are already logged.`,
                i,
              ),
            ),
            contractDraft(
              `### \`.sent\`\n\nTells whether the reply was already sent.\n\n${filler} ${filler} ${filler}`,
              4,
            ),
            ...[5, 6, 7].map((i) => contractDraft(`Queue notes ${i}: ${filler} A reply waits.`, i)),
          ];
          await store.replaceSources([input(p2, 'reply.md', chunks)]);
          const ask = (topK: number) =>
            store.search({ projectId: p2, text: 'Was the reply already sent?', topK, mode: 'lexical' });
          const opening = (hits: SearchHit[]) => hits.findIndex((h) => h.content.startsWith('### `.sent`'));
          // Ranked by its words alone, the section comes after the four notes.
          expect(opening(await ask(10))).toBe(4);
          const three = await ask(3);
          expect(three).toHaveLength(3);
          expect(opening(three)).toBe(2);
          expect(three.slice(0, 2).map((h) => h.content.slice(0, 14))).toEqual([
            'Reply notes 0:',
            'Reply notes 1:',
          ]);
        },
        t,
      );

      it(
        "does not search a question's frame ('good for') as its topic",
        async () => {
          const chunks = [
            'Principles: a good developer experience. Good defaults, good errors and good types make a good framework.',
            'Type providers infer the types of a route from its schema, so handlers need no hand-written types. Providers exist for several schema libraries.',
            'Routes declare a method, a URL and a handler.',
          ].map((content, i) => contractDraft(content, i));
          await store.replaceSources([input(p2, 'principles.md', chunks)]);
          const first = async (text: string) =>
            (await store.search({ projectId: p2, text, topK: 3, mode: 'lexical' }))[0]!.content;
          // "good" as a word of the question ranks the page of good things first; in the frame it is left out.
          expect(await first('What are type providers good at?')).toMatch(/^Principles/);
          expect(await first('What are type providers good for?')).toMatch(/^Type providers/);
        },
        t,
      );

      it(
        'searches the context of a question made of stop words only',
        async () => {
          const hits = await store.search({
            projectId: p1,
            text: 'and then?',
            context: 'log level',
            topK: 3,
            mode: 'lexical',
          });
          expect(hits[0]?.source).toBe('reference/logging.md');
        },
        t,
      );
    });

    it(
      'applies where filters inside the search',
      async () => {
        const inputs: ReplaceSourceInput[] = [];
        for (let v = 1; v <= 20; v++) {
          inputs.push(
            input(p1, `v${v}`, [contractDraft(`plugin hooks ${'x'.repeat(v)}`)], {
              metadata: { version: v, tag: v % 2 ? 'odd' : 'even' },
            }),
          );
        }
        await store.replaceSources(inputs);
        const search = (filters: Parameters<ChunkStore['search']>[0]['filters']) =>
          store.search({ projectId: p1, text: 'plugin hooks', topK: 30, mode: 'lexical', filters });
        expect(
          sources(
            await search([
              { field: 'version', op: '$gte', value: 15 },
              { field: 'tag', op: '$in', value: ['odd'] },
            ]),
          ).sort(),
        ).toEqual(['v15', 'v17', 'v19']);
        expect(
          sources(
            await search([
              { field: 'tag', op: '$eq', value: 'even' },
              { field: 'version', op: '$lt', value: 5 },
            ]),
          ).sort(),
        ).toEqual(['v2', 'v4']);
        expect(await search([{ field: 'version', op: '$eq', value: '3' }])).toEqual([]);
        expect(sources(await search([{ field: 'version', op: '$eq', value: 3 }]))).toEqual(['v3']);
        expect(await search([{ field: 'version', op: '$ne', value: 3 }])).toHaveLength(19);
        expect(await search([{ field: 'missing', op: '$ne', value: 'a' }])).toHaveLength(20);
        expect(await search([{ field: 'missing', op: '$eq', value: 'a' }])).toEqual([]);
      },
      t,
    );

    it(
      'gives every where operator its documented meaning, a missing field matching only $ne and $nin',
      async () => {
        const inputs: ReplaceSourceInput[] = [];
        for (let v = 1; v <= 6; v++) {
          inputs.push(
            input(p1, `v${v}`, [contractDraft('plugin hooks')], {
              metadata: { version: v, tag: v % 2 ? 'odd' : 'even' },
            }),
          );
        }
        inputs.push(input(p1, 'bare', [contractDraft('plugin hooks')], { metadata: { other: 'x' } }));
        // Booleans can be stored but not asked for: no number or string equals them, in either store.
        inputs.push(
          input(p1, 'flag', [contractDraft('plugin hooks')], { metadata: { version: true, tag: false } }),
        );
        await store.replaceSources(inputs);
        const found = async (field: string, op: FilterOperator, value: FilterScalar | FilterScalar[]) =>
          sources(
            await store.search({
              projectId: p1,
              text: 'plugin hooks',
              topK: 30,
              mode: 'lexical',
              filters: [{ field, op, value }],
            }),
          ).sort();
        // A Record, so an operator added to FILTER_OPERATORS without a case here fails to compile.
        const cases: Record<FilterOperator, Array<[string, FilterScalar | FilterScalar[], string[]]>> = {
          $eq: [
            ['tag', 'even', ['v2', 'v4', 'v6']],
            ['version', 3, ['v3']],
            ['version', '3', []],
            ['version', 1, ['v1']],
            ['tag', 0, []],
          ],
          $ne: [
            ['tag', 'even', ['bare', 'flag', 'v1', 'v3', 'v5']],
            ['version', '3', ['bare', 'flag', 'v1', 'v2', 'v3', 'v4', 'v5', 'v6']],
          ],
          $gt: [
            ['version', 4, ['v5', 'v6']],
            ['version', 0, ['v1', 'v2', 'v3', 'v4', 'v5', 'v6']],
          ],
          $gte: [['version', 4, ['v4', 'v5', 'v6']]],
          $lt: [
            ['version', 2, ['v1']],
            ['tag', 1, []],
          ],
          $lte: [['version', 2, ['v1', 'v2']]],
          $in: [
            ['tag', ['odd', 'none'], ['v1', 'v3', 'v5']],
            ['version', [1, '2', 6], ['v1', 'v6']],
            ['tag', [0, 1], []],
          ],
          $nin: [
            ['tag', ['odd'], ['bare', 'flag', 'v2', 'v4', 'v6']],
            ['version', [1, 2, 3, 4, 5], ['bare', 'flag', 'v6']],
            ['version', ['1', 'x'], ['bare', 'flag', 'v1', 'v2', 'v3', 'v4', 'v5', 'v6']],
            ['missing', ['a', 1], ['bare', 'flag', 'v1', 'v2', 'v3', 'v4', 'v5', 'v6']],
          ],
        };
        for (const [op, rows] of Object.entries(cases) as Array<[FilterOperator, (typeof cases)['$eq']]>) {
          for (const [field, value, expected] of rows) {
            expect({ field, op, value, found: await found(field, op, value) }).toEqual({
              field,
              op,
              value,
              found: expected,
            });
          }
        }
      },
      t,
    );

    describe('vectors', () => {
      const embedder = new FakeEmbedder(64);
      const embedPending = async (projectId?: number) => {
        const all: PendingChunk[] = [];
        for (let afterId = 0; ;) {
          const pending = await store.vectors.pending(100, afterId, projectId);
          if (pending.length === 0) return all;
          const vectors = await embedder.embed(pending.map((p) => p.text));
          await store.vectors.store(pending.map((p, i) => ({ chunkId: p.chunkId, vector: vectors[i]! })));
          all.push(...pending);
          afterId = pending[pending.length - 1]!.chunkId;
        }
      };
      const attempt = (fn: () => unknown) => Promise.resolve().then(fn);

      withVectors(
        'lists pending chunks with their text to embed, stores vectors and counts them',
        async () => {
          await store.vectors.attach(embedder.id, embedder.dimension);
          expect(await store.vectors.meta()).toEqual({ embedderId: embedder.id, dimension: 64 });
          await store.replaceSources([
            input(p1, 'a', [
              contractDraft('alpha', 0, { title: 'Greek', headingPath: ['Letters'] }),
              contractDraft('beta', 1),
            ]),
          ]);
          await store.replaceSources([input(p2, 'b', [contractDraft('gamma')])]);
          expect(await store.vectors.countPending()).toBe(3);
          expect(await store.vectors.countPending(p1)).toBe(2);
          const firstOfP1 = await store.vectors.pending(1, 0, p1);
          expect(firstOfP1).toEqual([
            { chunkId: expect.any(Number), projectId: p1, text: 'Greek\nLetters\nalpha' },
          ]);
          expect(await store.vectors.pending(10, firstOfP1[0]!.chunkId, p1)).toHaveLength(1);
          await embedPending(p1);
          expect(await store.vectors.countVectors(p1)).toBe(2);
          expect(await store.vectors.countVectors(p2)).toBe(0);
          expect(await store.vectors.countPending()).toBe(1);
          await embedPending();
          expect(await store.vectors.countVectors()).toBe(3);
        },
        t,
      );

      withVectors(
        'skips vectors of chunks deleted meanwhile and refuses a vector of the wrong dimension',
        async () => {
          await store.vectors.attach(embedder.id, embedder.dimension);
          await store.replaceSources([input(p1, 'a', [contractDraft('alpha')])]);
          const pending = await store.vectors.pending(10, 0);
          await store.deleteSource(p1, 'a');
          await store.vectors.store([
            { chunkId: pending[0]!.chunkId, vector: new Float32Array(64).fill(0.1) },
          ]);
          expect(await store.vectors.countVectors()).toBe(0);
          await store.replaceSources([input(p1, 'b', [contractDraft('beta')])]);
          const [next] = await store.vectors.pending(10, 0);
          await expect(
            attempt(() => store.vectors.store([{ chunkId: next!.chunkId, vector: new Float32Array(8) }])),
          ).rejects.toMatchObject({
            code: 'BAD_REQUEST',
          });
        },
        t,
      );

      withVectors(
        'keeps the vectors of unchanged chunks when a source is replaced, and drops them with the source',
        async () => {
          await store.vectors.attach(embedder.id, embedder.dimension);
          await store.replaceSources([
            input(p1, 's', [contractDraft('kept text'), contractDraft('changed text', 1)]),
          ]);
          await embedPending();
          await store.replaceSources([
            input(p1, 's', [contractDraft('kept text'), contractDraft('new text', 1)]),
          ]);
          expect(await store.vectors.countVectors(p1)).toBe(1);
          expect((await store.vectors.pending(10, 0)).map((p) => p.text)).toEqual(['T\n\nnew text']);
          await store.deleteSource(p1, 's');
          expect(await store.vectors.countVectors()).toBe(0);
          expect(await store.vectors.countPending()).toBe(0);
        },
        t,
      );

      withVectors(
        'finds by vector in dense and hybrid search, a dense-only hit included, within the project',
        async () => {
          await store.vectors.attach(embedder.id, embedder.dimension);
          await loadSite(store, p1);
          await loadSite(store, p2);
          await embedPending();
          const [vector] = await embedder.embed(['Logging\nLogging\npino logger level redact secrets']);
          const dense = await store.search({ projectId: p1, text: '', vector, topK: 2, mode: 'dense' });
          expect(dense[0]?.source).toBe('reference/logging.md');
          expect(dense.every((h) => h.score >= 0 && h.score <= 1)).toBe(true);
          // No word of the question is in the index: only the vector can find the page.
          const hybrid = await store.search({
            projectId: p1,
            text: 'zyzzyva quokka',
            vector,
            topK: 3,
            mode: 'hybrid',
          });
          expect(hybrid[0]?.source).toBe('reference/logging.md');
          const ids = new Set(
            (await store.search({ projectId: p1, text: 'install', vector, topK: 10, mode: 'hybrid' })).map(
              (h) => h.chunkId,
            ),
          );
          const p2Ids = (
            await store.search({ projectId: p2, text: 'install', topK: 10, mode: 'lexical' })
          ).map((h) => h.chunkId);
          expect(p2Ids.some((id) => ids.has(id))).toBe(false);
          const filtered = await store.search({
            projectId: p1,
            text: 'zyzzyva',
            vector,
            topK: 3,
            mode: 'dense',
            filters: [{ field: 'nothing', op: '$eq', value: 1 }],
          });
          expect(filtered).toEqual([]);
        },
        t,
      );

      withVectors(
        'finds the k nearest of a small project beside a much larger one',
        async () => {
          await store.vectors.attach(embedder.id, embedder.dimension);
          const many = Array.from({ length: 300 }, (_, i) => contractDraft(`plugin hook number ${i}`, i));
          await store.replaceSources([input(p2, 'big', many)]);
          await store.replaceSources([
            input(p1, 'small', [
              contractDraft('decorators extend the instance'),
              contractDraft('schemas validate bodies', 1),
              contractDraft('hooks run in order', 2),
            ]),
          ]);
          await embedPending();
          const [vector] = await embedder.embed(['plugin hook number 7']);
          const hits = await store.search({ projectId: p1, text: '', vector, topK: 3, mode: 'dense' });
          expect(sources(hits)).toEqual(['small', 'small', 'small']);
        },
        t,
      );

      withVectors(
        'binds to one embedder: another is INDEX_MISMATCH until reset drops every vector',
        async () => {
          await store.vectors.attach(embedder.id, embedder.dimension);
          await store.vectors.attach(embedder.id, embedder.dimension);
          await store.replaceSources([input(p1, 'a', [contractDraft('alpha')])]);
          await embedPending();
          const old = await embedder.embed(['alpha']);
          const dense = { projectId: p1, text: 'alpha', vector: old[0]!, topK: 3, mode: 'dense' as const };
          expect(sources(await store.search(dense))).toEqual(['a']);
          await expect(attempt(() => store.vectors.attach('other-model', 32))).rejects.toMatchObject({
            code: 'INDEX_MISMATCH',
          });
          await store.vectors.reset('other-model', 32);
          expect(await store.vectors.meta()).toEqual({ embedderId: 'other-model', dimension: 32 });
          // A vector of the old model is refused, not searched with (a store that remembered the
          // dimension it last searched would otherwise answer it with nothing).
          await expect(attempt(() => store.search(dense))).rejects.toMatchObject({ code: 'BAD_REQUEST' });
          expect(await store.vectors.countVectors()).toBe(0);
          expect(await store.vectors.countPending()).toBe(1);
          await store.vectors.attach('other-model', 32);
        },
        t,
      );

      it(
        'without an embedder: no meta, storing is INDEX_MISMATCH, dense search is INDEX_MISMATCH, hybrid is lexical',
        async () => {
          await store.replaceSources([input(p1, 'a', [contractDraft('alpha words')])]);
          expect(await store.vectors.meta()).toBeUndefined();
          expect(await store.vectors.countVectors()).toBe(0);
          const [pending] = await store.vectors.pending(1, 0);
          await expect(
            attempt(() => store.vectors.store([{ chunkId: pending!.chunkId, vector: new Float32Array(64) }])),
          ).rejects.toMatchObject({
            code: 'INDEX_MISMATCH',
          });
          const vector = new Float32Array(64).fill(0.125);
          await expect(
            store.search({ projectId: p1, text: 'alpha', vector, topK: 3, mode: 'dense' }),
          ).rejects.toMatchObject({ code: 'INDEX_MISMATCH' });
          const hybrid = await store.search({ projectId: p1, text: 'alpha', topK: 3, mode: 'hybrid' });
          expect(sources(hybrid)).toEqual(['a']);
        },
        t,
      );

      lexicalOnly(
        'refuses to attach an embedder when the store has no vector support',
        async () => {
          await expect(
            attempt(() => store.vectors.attach(embedder.id, embedder.dimension)),
          ).rejects.toMatchObject({
            code: 'UNSUPPORTED',
          });
          expect(await store.vectors.meta()).toBeUndefined();
        },
        t,
      );
    });
  });
}
