import { KbqaError } from '@kbqa/core';
import type { RateLimits } from '../common/rate-limit';
import type { ChatService, ChatTurn } from '../chat/chat.service';
import type { ConversationsService } from '../conversations/conversations.service';
import { IntegrationAnswers } from './integration-answers';
import type { IntegrationsRepository } from './integrations.repository';

function answers(options: { wait?: number; start?: () => Promise<ChatTurn> }) {
  const limits = { consume: () => Promise.resolve(options.wait) } as unknown as RateLimits;
  const finished: Array<[string, boolean]> = [];
  const chat = {
    start: options.start ?? (() => Promise.reject(new Error('not called'))),
    finish: (_turn: ChatTurn, text: string, complete: boolean) => {
      finished.push([text, complete]);
      return Promise.resolve(99);
    },
  } as unknown as ChatService;
  const repository = {
    conversationOf: () => Promise.resolve(undefined),
    linkThread: () => Promise.resolve(),
  } as unknown as IntegrationsRepository;
  return {
    service: new IntegrationAnswers(chat, {} as ConversationsService, repository, limits),
    finished,
  };
}

const question = {
  projectId: 1,
  platform: 'slack' as const,
  question: 'how?',
  threadKey: 'T:C:1',
  limitKey: 'T',
  signal: new AbortController().signal,
};

describe(IntegrationAnswers.name, () => {
  it('says when the workspace is over the chat limit, without starting a chat', async () => {
    const { service } = answers({ wait: 12 });
    expect(await service.ask(question)).toEqual({
      kind: 'refused',
      text: 'Too many questions from this workspace right now; please ask again in 12 s.',
    });
  });

  it('says so when the answer fails, and stores the partial answer as incomplete', async () => {
    async function* failing(): AsyncIterable<string> {
      yield await Promise.resolve('Partial');
      throw new KbqaError('LLM_ERROR', 'the model went away');
    }
    const turn = { conversationId: 5, sources: [], pieces: failing() } as unknown as ChatTurn;
    const { service, finished } = answers({ start: () => Promise.resolve(turn) });
    expect(await service.ask(question)).toEqual({
      kind: 'refused',
      text: 'Sorry, I could not answer that (LLM_ERROR). Please try again later.',
    });
    expect(finished).toEqual([['Partial', false]]);
  });

  it('says so when the chat is refused before it starts', async () => {
    const { service } = answers({ start: () => Promise.reject(new KbqaError('MODEL_BUSY', 'busy')) });
    expect(await service.ask({ ...question, platform: 'discord' })).toEqual({
      kind: 'refused',
      text: 'The answer model is busy right now; please ask again in a minute.',
    });
  });
});
