import 'reflect-metadata';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AnswerGenerator,
  type AnswerRequest,
  type HistoryTurn,
  KbqaError,
  type SearchHit,
} from '@kbqa/core';
import type { AppConfig } from '../config/config';
import type { ConversationsService } from '../conversations/conversations.service';
import type { ProjectsService } from '../projects/projects.service';
import type { RetrievalService, RetrieveRequest } from '../retrieval/retrieval.service';
import type { TaughtMatch, TeachingService } from '../teaching/teaching.service';
import type { ChatTool, ToolsService } from '../tools/tools.service';
import type { ChatDto } from './chat.dto';
import { ChatService, questionWords, searchQuestion } from './chat.service';

const hit = {
  chunkId: 4,
  source: 's',
  link: 'https://docs.example.com/s',
  title: 'S',
  content: 'c',
  score: 0.7,
  headingPath: ['Factory', '`bodyLimit`'],
};

function setup(
  options: {
    hits?: SearchHit[];
    taught?: TaughtMatch;
    supportsTools?: boolean;
    tools?: ChatTool[];
    usesSystemPrompt?: boolean;
    usesUnknownWords?: boolean;
    absent?: string[];
    answerTrace?: string;
    /** `unchanged`: the generator condenses nothing, as a model-free one leaves a question its own words. */
    condense?: 'unchanged';
    /** The turns the conversation has stored. */
    stored?: HistoryTurn[];
  } = {},
) {
  const calls: string[] = [];
  const retrieved: RetrieveRequest[] = [];
  const generated: AnswerRequest[] = [];
  const lookedUp: string[][] = [];
  const retrieval = {
    retrieveVersioned: (r: RetrieveRequest) => {
      retrieved.push(r);
      return Promise.resolve({ hits: options.hits ?? [hit as unknown as SearchHit] });
    },
    absentWords: (_p: number, words: string[]) => {
      lookedUp.push(words);
      return Promise.resolve(words.filter((w) => options.absent?.includes(w)));
    },
  } as unknown as RetrievalService;
  const conversations = {
    startWithHuman: (_p: number, _k: string, _r: string | undefined, text: string) => (
      calls.push(`start with human ${text}`),
      Promise.resolve({ conversationId: 10, humanMessageId: 20 })
    ),
    open: (_p: number, id: number) => (calls.push(`open ${id}`), Promise.resolve(id)),
    addHuman: (_p: number, _c: number, text: string) => (calls.push(`human ${text}`), Promise.resolve(20)),
    addAi: (...args: unknown[]) => (calls.push(`ai ${JSON.stringify(args.slice(3))}`), Promise.resolve(21)),
    recentTurns: (_p: number, id: number, turns: number) => (
      calls.push(`recent ${id} ${turns}`),
      Promise.resolve(options.stored ?? [])
    ),
  } as unknown as ConversationsService;
  const projects = {
    getProject: () => (calls.push('project'), Promise.resolve({ systemPrompt: 'Be brief.' })),
  } as unknown as ProjectsService;
  const generator: AnswerGenerator = {
    id: 'fake',
    supportsTools: options.supportsTools,
    usesSystemPrompt: options.usesSystemPrompt ?? true,
    usesUnknownWords: options.usesUnknownWords,
    async *generate(request: AnswerRequest) {
      generated.push(request);
      await Promise.resolve();
      // As a tool-calling model would: one call per offered tool, before the text.
      for (const [i, tool] of (request.tools ?? []).entries()) {
        request.onToolEvent?.({ type: 'called', callId: `c${i}`, name: tool.name });
        const result = await tool.run({});
        request.onToolEvent?.({ type: 'result', callId: `c${i}`, name: tool.name, result });
      }
      yield 'answer';
    },
    condenseQuestion: (question, history) =>
      Promise.resolve(
        options.condense === 'unchanged'
          ? question
          : `${history.map((h) => h.prompt).join(' / ')} -> ${question}`,
      ),
    summarize: (text) => Promise.resolve(text),
  };
  const matched: string[] = [];
  const teaching = {
    match: (_p: number, question: string) => (matched.push(question), Promise.resolve(options.taught)),
  } as unknown as TeachingService;
  const keyKinds: string[] = [];
  const tools = {
    chatTools: (_p: number, kind: string) => (keyKinds.push(kind), Promise.resolve(options.tools ?? [])),
  } as unknown as ToolsService;
  const config = { answerTrace: options.answerTrace } as AppConfig;
  const service = new ChatService(retrieval, conversations, projects, teaching, generator, tools, config);
  return { service, calls, retrieved, generated, keyKinds, lookedUp, matched };
}

const signal = new AbortController().signal;

describe(ChatService.name, () => {
  describe('with a taught answer matching the question', () => {
    const taughtHit = {
      ...hit,
      chunkId: 9,
      sourceId: 3,
      source: 'taught:1',
      link: 'taught:1',
      title: 'Q?',
      content: 'A.',
    };
    const taught = { hit: taughtHit as unknown as SearchHit, similarity: 0.8 };
    const hits = [
      { ...hit, chunkId: 1, sourceId: 1 },
      { ...hit, chunkId: 8, sourceId: 3, content: 'A chunk of the taught source' },
      { ...hit, chunkId: 2, sourceId: 2 },
    ] as unknown as SearchHit[];

    it('puts it first, marked curated, in place of its own chunks, topK in all', async () => {
      const { service, generated } = setup({ hits, taught });
      const turn = await service.start(
        1,
        'server',
        { question: 'q', retriever_options: { num_chunks: 2 } },
        signal,
      );
      expect(turn.sources.map((s) => s.chunkId)).toEqual([9, 1]);
      for await (const _ of turn.pieces);
      expect(generated[0]?.sources.map((s) => [s.content, s.curated])).toEqual([
        ['A.', true],
        ['c', false],
      ]);
    });

    it('leaves it out with a where filter, or a threshold above its similarity', async () => {
      for (const dto of [
        { question: 'q', where: { version: { $eq: 5 } } },
        { question: 'q', relevance_threshold: 0.9 },
      ]) {
        const { service } = setup({ hits, taught });
        const turn = await service.start(1, 'server', dto, signal);
        expect(turn.sources[0]?.chunkId).toBe(1);
      }
    });
  });

  it('opens a new conversation, retrieves for the question and stores it before answering', async () => {
    const { service, calls, retrieved, generated } = setup();
    const turn = await service.start(1, 'server', { question: 'What is a hook?' }, signal);
    expect(turn).toMatchObject({ projectId: 1, conversationId: 10, humanMessageId: 20 });
    expect(calls).toEqual(['start with human What is a hook?', 'project']);
    expect(retrieved[0]).toMatchObject({ projectId: 1, question: 'What is a hook?', threshold: 0 });
    for await (const piece of turn.pieces) expect(piece).toBe('answer');
    expect(generated[0]).toMatchObject({
      question: 'What is a hook?',
      systemPrompt: 'Be brief.',
      // The heading path tells the generator which section a passage cut mid-section belongs to.
      sources: [
        { n: 1, link: 'https://docs.example.com/s', content: 'c', headingPath: ['Factory', '`bodyLimit`'] },
      ],
    });
  });

  it("does not look the project's prompt up for a generator that reads none", async () => {
    const { service, calls, generated } = setup({ usesSystemPrompt: false });
    const turn = await service.start(1, 'server', { question: 'What is a hook?' }, signal);
    for await (const _ of turn.pieces);
    expect(calls).toEqual(['start with human What is a hook?']);
    expect(generated[0]?.systemPrompt).toBeUndefined();
  });

  it("tells a generator that reads them which of the question's own words the project never uses", async () => {
    const { service, generated, lookedUp } = setup({ usesUnknownWords: true, absent: ['PM2'] });
    const dto = {
      question: 'and with PM2 in cluster mode?',
      history: [{ prompt: 'How do I deploy my app?', response: 'Build it.' }],
    } as unknown as ChatDto;
    const turn = await service.start(1, 'server', dto, signal);
    for await (const _ of turn.pieces);
    // The follow-up's own words, not the conversation's ("deploy").
    expect(lookedUp).toEqual([['PM2', 'cluster', 'mode']]);
    expect(generated[0]?.unknownWords).toEqual(['PM2']);
  });

  it("appends each chat's generator inputs to the answer trace when one is set", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kbqa-trace-'));
    try {
      const answerTrace = join(dir, 'trace.jsonl');
      const { service } = setup({ usesUnknownWords: true, absent: ['PM2'], answerTrace });
      for (const question of ['Run it with PM2?', 'What is bodyLimit?']) {
        const turn = await service.start(1, 'server', { question }, signal);
        for await (const _ of turn.pieces);
      }
      const lines = readFileSync(answerTrace, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => [l.question, l.unknownWords])).toEqual([
        ['Run it with PM2?', ['PM2']],
        ['What is bodyLimit?', []],
      ]);
      expect(lines[1].sources).toEqual([
        expect.objectContaining({ n: 1, content: 'c', link: hit.link, headingPath: hit.headingPath }),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('looks no word up for a generator that reads none', async () => {
    const { service, generated, lookedUp } = setup();
    const turn = await service.start(1, 'server', { question: 'Run it with PM2?' }, signal);
    for await (const _ of turn.pieces);
    expect(lookedUp).toEqual([]);
    expect(generated[0]?.unknownWords).toBeUndefined();
  });

  it('searches with the question made standalone from the history, but stores what was asked', async () => {
    const { service, calls, retrieved } = setup();
    const dto = {
      question: 'and for one origin?',
      conversation_id: '7',
      history: [{ prompt: 'How do I enable CORS?', response: 'Register the plugin.' }],
    } as unknown as ChatDto;
    await service.start(1, 'server', dto, signal);
    expect(retrieved[0]?.question).toBe('How do I enable CORS? -> and for one origin?');
    expect(calls).toEqual(['open 7', 'human and for one origin?', 'project']);
  });

  it('reads a follow-up against the history without a model: searched, matched and answered as that', async () => {
    const { service, retrieved, generated, matched } = setup({ condense: 'unchanged' });
    const dto = {
      question: 'and for the reply?',
      history: [{ prompt: 'How do I attach a helper to the request?', response: 'Decorate it [1].' }],
    } as unknown as ChatDto;
    const turn = await service.start(1, 'server', dto, signal);
    for await (const _ of turn.pieces);
    expect(retrieved[0]).toMatchObject({
      question: 'How do I attach a helper to the reply?',
      focus: 'the reply',
      context: 'attach helper',
    });
    expect(matched).toEqual(['How do I attach a helper to the reply?']);
    expect(generated[0]).toMatchObject({
      question: 'How do I attach a helper to the reply?',
      context: 'attach helper',
    });
    expect(generated[0]).not.toHaveProperty('focus');
  });

  it("takes a continued conversation's stored turns as the history when the request sends none", async () => {
    const stored = [{ prompt: 'How do I attach a helper to the request?', response: 'Decorate it [1].' }];
    const { service, calls, retrieved, generated } = setup({ condense: 'unchanged', stored });
    const turn = await service.start(
      1,
      'server',
      { question: 'and for the reply?', conversation_id: '7' },
      signal,
    );
    for await (const _ of turn.pieces);
    expect(calls.slice(0, 2)).toEqual(['open 7', 'recent 7 3']);
    expect(retrieved[0]?.question).toBe('How do I attach a helper to the reply?');
    expect(generated[0]?.history).toEqual(stored);
  });

  it('refuses a bad where filter before opening a conversation or storing anything', async () => {
    const { service, calls } = setup();
    const dto = { question: 'q', where: { lang: { $regex: 'x' } } } as unknown as ChatDto;
    await expect(service.start(1, 'server', dto, signal)).rejects.toBeInstanceOf(KbqaError);
    expect(calls).toEqual([]);
  });

  it('stores the answer with its sources, marked incomplete when the client went away', async () => {
    const { service, calls } = setup();
    const turn = await service.start(1, 'server', { question: 'q' }, signal);
    expect(await service.finish(turn, 'partial', false)).toBe(21);
    expect(calls.at(-1)).toBe(
      `ai ${JSON.stringify(['partial', [{ chunk_id: 4, source: 's', link: 'https://docs.example.com/s', score: 0.7 }], false, []])}`,
    );
  });

  describe('tools', () => {
    const tool = (name: string, hasError = false): ChatTool => ({
      name,
      description: name,
      parameters: { type: 'object' },
      run: () =>
        Promise.resolve({ ok: !hasError, status: hasError ? 500 : 200, output: 'out', has_error: hasError }),
    });

    it("asks for the tools of the caller's key kind and records each call of the turn", async () => {
      const { service, generated, keyKinds, calls } = setup({
        supportsTools: true,
        tools: [tool('stock'), tool('orders', true)],
      });
      const turn = await service.start(1, 'anon', { question: 'q' }, signal);
      expect(keyKinds).toEqual(['anon']);
      expect(turn.toolsOffered).toBe(true);
      const seen: string[] = [];
      turn.onToolEvent = (e) => seen.push(`${e.type} ${e.name}`);
      for await (const _piece of turn.pieces);
      expect(generated[0]?.tools?.map((t) => t.name)).toEqual(['stock', 'orders']);
      expect(seen).toEqual(['called stock', 'result stock', 'called orders', 'result orders']);
      expect(turn.toolsUsed).toEqual([
        expect.objectContaining({ tool_name: 'stock', has_error: false }),
        expect.objectContaining({ tool_name: 'orders', has_error: true }),
      ]);
      const [a, b] = turn.toolsUsed;
      expect(a!.id).not.toBe(b!.id);
      expect(a!.internal_run_id).toBe(b!.internal_run_id);
      expect(a!.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      await service.finish(turn, 'answer', true);
      expect(calls.at(-1)).toContain('"tool_name":"stock"');
      const next = await service.start(1, 'anon', { question: 'q' }, signal);
      for await (const _piece of next.pieces);
      expect(next.toolsUsed[0]!.internal_run_id).not.toBe(a!.internal_run_id);
    });

    it('offers no tools to a generator that calls none, nor when the project has none', async () => {
      const extractive = setup({ tools: [tool('stock')] });
      const turn = await extractive.service.start(1, 'server', { question: 'q' }, signal);
      expect(extractive.keyKinds).toEqual([]);
      expect(turn.toolsOffered).toBe(false);
      const none = setup({ supportsTools: true });
      expect((await none.service.start(1, 'server', { question: 'q' }, signal)).toolsOffered).toBe(false);
    });
  });
});

describe(questionWords.name, () => {
  it('keeps content words as written, once each, without stop words or single letters', () => {
    expect(questionWords('How do I deploy to Fly.io with PM2 and pm2 logs, a b?')).toEqual([
      'deploy',
      'Fly',
      'io',
      'PM2',
      'logs',
    ]);
  });
});

describe(searchQuestion.name, () => {
  const history = [{ prompt: 'How do I enable CORS?', response: 'Register `@fastify/cors` [1].' }];

  it('searches a model-free follow-up that points back as the question it stands for, the subject at full weight', () => {
    const question = 'and how do I restrict it to one origin?';
    const condensed = `enable CORS: ${question}`;
    const resolved = { question: 'how do I restrict CORS to one origin?', context: '@fastify/cors' };
    expect(searchQuestion(question, condensed, history)).toEqual(resolved);
    expect(searchQuestion(question, question, history)).toEqual(resolved);
  });

  it('searches "and for X?" for X, the previous question\'s frame as context, not the subject it left', () => {
    expect(searchQuestion('and for a session store?', 'and for a session store?', history)).toEqual({
      question: 'How do I enable a session store?',
      focus: 'a session store',
      context: 'enable',
    });
  });

  it('searches a follow-up that names its own subject with its own words, the topic as context', () => {
    const question = 'and how do I log the origin of each request?';
    expect(searchQuestion(question, question, history)).toEqual({
      question,
      context: 'enable CORS @fastify/cors',
    });
  });

  it("searches a language model's standalone rewrite as is", () => {
    expect(searchQuestion('and for one origin?', 'How do I restrict CORS to one origin?', history)).toEqual({
      question: 'How do I restrict CORS to one origin?',
    });
  });

  it('adds no context to a standalone question', () => {
    expect(searchQuestion('How do I register a plugin?', 'How do I register a plugin?', history)).toEqual({
      question: 'How do I register a plugin?',
    });
  });

  it("names a definition question's topic, so retrieval can find the opening of the topic's page", () => {
    expect(searchQuestion('What do decorators do?', 'What do decorators do?', [])).toEqual({
      question: 'What do decorators do?',
      topic: 'decorators',
    });
    expect(
      searchQuestion('How do I register a plugin?', 'How do I register a plugin?', []),
    ).not.toHaveProperty('topic');
  });
});
