import 'reflect-metadata';
import { type AnswerGenerator, type AnswerRequest, KbqaError, type SearchHit } from '@kbqa/core';
import type { RateLimits } from '../common/rate-limit';
import type { ConversationsService } from '../conversations/conversations.service';
import type { AuthenticatedKey, ProjectsService } from '../projects/projects.service';
import type { RetrievalService, RetrieveRequest } from '../retrieval/retrieval.service';
import type { TaughtMatch, TeachingService } from '../teaching/teaching.service';
import { answerText, McpKnowledgeService } from './mcp.service';

function hit(sourceId: number, link: string, score: number, title = ''): SearchHit {
  return {
    chunkId: sourceId * 10,
    documentId: sourceId,
    sourceId,
    source: link,
    content: `content of ${link}`,
    title,
    headingPath: ['Guide', link],
    link,
    score,
  };
}

function setup(
  options: { hits?: SearchHit[]; taught?: TaughtMatch; spent?: boolean; failAfter?: string } = {},
) {
  const retrieved: RetrieveRequest[] = [];
  const stored: unknown[][] = [];
  const generated: AnswerRequest[] = [];
  const counted: string[] = [];
  const retrieval = {
    retrieveVersioned: (r: RetrieveRequest) => (
      retrieved.push(r),
      Promise.resolve({ hits: options.hits ?? [] })
    ),
  } as unknown as RetrievalService;
  const projects = {
    getProject: () => Promise.resolve({ systemPrompt: 'Be brief.' }),
  } as unknown as ProjectsService;
  const teaching = { match: () => Promise.resolve(options.taught) } as unknown as TeachingService;
  const limits = {
    consume: (bucket: string, key: string) => {
      counted.push(`${bucket} ${key}`);
      return Promise.resolve(options.spent ? 17 : undefined);
    },
  } as unknown as RateLimits;
  const generator: AnswerGenerator = {
    id: 'fake',
    async *generate(request: AnswerRequest) {
      generated.push(request);
      await Promise.resolve();
      yield 'Use bodyLimit ';
      if (options.failAfter) throw new KbqaError('INTERNAL', options.failAfter);
      yield '[1].';
    },
    condenseQuestion: (question) => Promise.resolve(question),
    summarize: (text) => Promise.resolve(text),
  };
  const conversations = {
    startWithHuman: (...args: unknown[]) => (
      stored.push(['Human', ...args]),
      Promise.resolve({ conversationId: 11, humanMessageId: 12 })
    ),
    addAi: (...args: unknown[]) => (stored.push(['AI', ...args]), Promise.resolve(13)),
  } as unknown as ConversationsService;
  const service = new McpKnowledgeService(retrieval, projects, teaching, conversations, limits, generator);
  return { service, retrieved, generated, counted, stored };
}

const server: AuthenticatedKey = { keyId: 3, projectId: 7, kind: 'server' };
const anon: AuthenticatedKey = { keyId: 4, projectId: 7, kind: 'anon' };
const signal = new AbortController().signal;

describe(McpKnowledgeService.name, () => {
  it('searches the caller’s project with its filter and size, scores rounded like serviceChat', async () => {
    const { service, retrieved } = setup({ hits: [hit(1, 'a.md', 0.123456, 'A'), hit(2, 'b.md', 0.5)] });
    const passages = await service.search(
      { auth: server, address: '10.0.0.1' },
      { question: 'q', where: { section: { $eq: 'guides' } }, num_chunks: 2 },
    );
    expect(retrieved).toEqual([
      {
        projectId: 7,
        question: 'q',
        topK: 2,
        filters: [{ field: 'section', op: '$eq', value: 'guides' }],
        threshold: 0,
      },
    ]);
    expect(passages).toEqual([
      { link: 'a.md', title: 'A', content: 'content of a.md', relevance_score: 0.1235 },
      { link: 'b.md', content: 'content of b.md', relevance_score: 0.5 },
    ]);
  });

  it('refuses a bad where filter before counting the request', async () => {
    const { service, counted } = setup();
    await expect(
      service.search({ auth: server, address: 'x' }, { question: 'q', where: { v: { $regex: 'x' } } }),
    ).rejects.toThrow(KbqaError);
    expect(counted).toEqual([]);
  });

  it('counts server keys per key and anon keys per key and address, as serviceChat does', async () => {
    const { service, counted } = setup();
    await service.search({ auth: server, address: '10.0.0.1' }, { question: 'q' });
    await service.ask({ auth: anon, address: '10.0.0.2' }, 'q', signal);
    expect(counted).toEqual(['chatServer 3', 'chatAnon 4:10.0.0.2']);
  });

  it('refuses a spent limit with RATE_LIMITED and the wait, without retrieving', async () => {
    const { service, retrieved } = setup({ spent: true });
    await expect(service.ask({ auth: anon, address: 'x' }, 'q', signal)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(/reader; retry after 17 s/),
    });
    expect(retrieved).toEqual([]);
  });

  it('answers with the project prompt and a taught answer first, citing the sources in order', async () => {
    const taught: TaughtMatch = { hit: hit(9, 'taught', 0.95), similarity: 0.95 };
    const { service, generated } = setup({ hits: [hit(1, 'a.md', 0.6), hit(9, 'taught', 0.4)], taught });
    const result = await service.ask({ auth: server, address: 'x' }, 'q', signal);
    expect(result).toEqual({
      answer: 'Use bodyLimit [1].',
      sources: [
        { link: 'taught', relevance_score: 0.95 },
        { link: 'a.md', relevance_score: 0.6 },
      ],
      text: 'Use bodyLimit [1].\n\nSources:\n[1] taught\n[2] a.md',
    });
    expect(generated[0]).toMatchObject({ question: 'q', history: [], systemPrompt: 'Be brief.' });
    expect(generated[0]!.sources.map((s) => [s.n, s.link, s.curated])).toEqual([
      [1, 'taught', true],
      [2, 'a.md', false],
    ]);
    // The heading path tells the generator which section a passage cut mid-section belongs to.
    expect(generated[0]!.sources[1]?.headingPath).toEqual(['Guide', 'a.md']);
  });

  it("stores an ask as a conversation of channel mcp, started by the caller's key kind", async () => {
    const { service, stored } = setup({ hits: [hit(1, 'a.md', 0.6)] });
    await service.ask({ auth: anon, address: 'x' }, 'how big?', signal);
    const source = { chunk_id: 10, source: 'a.md', link: 'a.md', score: 0.6 };
    expect(stored).toEqual([
      ['Human', 7, 'anon', undefined, 'how big?', undefined, 'mcp'],
      ['AI', 7, 11, 12, 'Use bodyLimit [1].', [source], true],
    ]);
  });

  it('stores an answer cut off by a failure as incomplete, and stores nothing for a search', async () => {
    const { service, stored } = setup({ hits: [hit(1, 'a.md', 0.6)], failAfter: 'model went away' });
    await service.search({ auth: server, address: 'x' }, { question: 'q' });
    expect(stored).toEqual([]);
    await expect(service.ask({ auth: server, address: 'x' }, 'q', signal)).rejects.toThrow('model went away');
    expect(stored.map((s) => [s[0], s[4], s[6]])).toEqual([
      ['Human', 'q', 'mcp'],
      ['AI', 'Use bodyLimit ', false],
    ]);
  });
});

describe(answerText.name, () => {
  it('numbers pages, not passages, and lists each page once with its title', () => {
    const hits = [
      hit(1, 'https://d.example/pipes', 0.9, 'Pipes'),
      hit(1, 'https://d.example/pipes', 0.8, 'Pipes'),
      hit(2, 'https://d.example/validation', 0.7),
      hit(3, 'https://d.example/raw-body', 0.6, 'Raw body'),
    ];
    expect(answerText('Pipes run first [2]. Raw bodies [4]; validation [3][1] [7].', hits)).toBe(
      'Pipes run first [1]. Raw bodies [2]; validation [3][1].\n\nSources:\n' +
        '[1] Pipes - https://d.example/pipes\n[2] Raw body - https://d.example/raw-body\n' +
        '[3] https://d.example/validation',
    );
  });

  it('gives the answer alone when there are no sources', () => {
    expect(answerText('Not covered [1].', [])).toBe('Not covered.');
  });
});
