import { KbqaError } from '@kbqa/core';
import { createAnswerGenerator } from './answer-generator.factory';
import { ExtractiveAnswerGenerator } from './extractive-answer.generator';
import { OpenAiAnswerGenerator } from './openai-answer.generator';

describe(createAnswerGenerator.name, () => {
  it('builds the extractive generator', () => {
    const generator = createAnswerGenerator({ kind: 'extractive' });
    expect(generator).toBeInstanceOf(ExtractiveAnswerGenerator);
    expect(generator.id).toBe('extractive');
  });

  it('builds an OpenAI-compatible generator named after its model', () => {
    const generator = createAnswerGenerator({
      kind: 'openai',
      baseUrl: 'http://127.0.0.1:11434/v1/',
      model: 'llama3.2',
      timeoutMs: 1000,
    });
    expect(generator).toBeInstanceOf(OpenAiAnswerGenerator);
    expect(generator.id).toBe('openai:llama3.2');
  });

  it('rejects a base URL that is not http or https', () => {
    expect(() => createAnswerGenerator({ kind: 'openai', baseUrl: 'file:///etc', model: 'm' })).toThrow(
      KbqaError,
    );
    expect(() => createAnswerGenerator({ kind: 'openai', baseUrl: 'not a url', model: 'm' })).toThrow(
      KbqaError,
    );
  });
});
