import { buildAnswerMessages, buildCondenseMessages, parseCondensed } from './openai.prompts';

describe(buildAnswerMessages.name, () => {
  it('tells the model the documentation has nothing when there are no sources', () => {
    const [system] = buildAnswerMessages({ question: 'q', sources: [], history: [] });
    expect(system?.content).toContain('none matched this question');
  });

  it('keeps only the last turns of a long history', () => {
    const history = Array.from({ length: 5 }, (_, i) => ({ prompt: `p${i}`, response: `r${i}` }));
    const messages = buildAnswerMessages({ question: 'q', sources: [], history }, 2);
    expect(messages.slice(1).map((m) => m.content)).toEqual(['p3', 'r3', 'p4', 'r4', 'q']);
  });
});

describe(buildCondenseMessages.name, () => {
  it('puts the conversation and the follow-up in one user message', () => {
    const messages = buildCondenseMessages('and in v5?', [
      { prompt: 'How do hooks work?', response: 'Like this.' },
    ]);
    expect(messages[1]?.content).toBe(
      'Conversation:\nUser: How do hooks work?\nAssistant: Like this.\n\nFollow-up question: and in v5?',
    );
  });
});

describe(parseCondensed.name, () => {
  it('strips labels and quotes, and falls back to the question on an empty reply', () => {
    expect(parseCondensed('Question: "How do hooks work in v5?"\n', 'and in v5?')).toBe(
      'How do hooks work in v5?',
    );
    expect(parseCondensed('   ', 'and in v5?')).toBe('and in v5?');
  });
});
