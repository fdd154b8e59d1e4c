import { type AnswerSource } from '@kbqa/core';
import { source, page, answer } from '../../test/extractive';
import { ExtractiveAnswerGenerator } from '../extractive-answer.generator';

describe(ExtractiveAnswerGenerator.name, () => {
  describe('units of the sources', () => {
    it('keeps admonition markers, directives and HTML comments out of the answer', async () => {
      const content = [
        '<!-- markdownlint-disable -->',
        '## Limits',
        '',
        '> ℹ️ Note:',
        '> The `bodyLimit` option sets the largest accepted payload in bytes.',
        '',
        ':::tip',
        'Raise `bodyLimit` for file uploads.',
        ':::',
      ].join('\n');
      const text = await answer('What does the bodyLimit option do?', [page(1, 'Server', 'server', content)]);
      expect(text).toContain('The `bodyLimit` option sets the largest accepted payload in bytes [1].');
      expect(text).not.toMatch(/ℹ️|Note:|:::|<!--|markdownlint/);
    });

    describe('a passage cut from the middle of its section', () => {
      const continued = (headingPath?: string[]): AnswerSource => ({
        ...source(
          1,
          'Server',
          [
            'routes cannot opt out of it, they can only override it with another value.',
            '',
            'Fastify answers with a 503 error when the time runs out before the handler replies.',
          ].join('\n'),
        ),
        headingPath,
      });

      it('names the section its heading path ends in, as a passage under that heading would', async () => {
        const text = await answer('Which option answers 503 when the handler takes too long?', [
          continued(['Factory', '`handlerTimeout`']),
        ]);
        expect(text.startsWith('`handlerTimeout`: Fastify answers with a 503 error')).toBe(true);
      });

      it('is quoted without a name when its source has no heading path', async () => {
        const text = await answer('Which option answers 503 when the handler takes too long?', [continued()]);
        expect(text.startsWith('Fastify answers with a 503 error')).toBe(true);
      });

      it('does not take its first sentence for the opening of an option heading it inherits', async () => {
        // A definition of an option opens with the first sentence under its own heading; the first
        // sentence of a continued passage is from the middle of the section.
        const server = [
          'This is only a detail about how the timer resets for each request.',
          '',
          'Timers also stop when the reply is hijacked.',
        ].join('\n');
        const opening = [
          '### `handlerTimeout`',
          '',
          'Defines how long a handler may run before the request gets a 503.',
        ].join('\n');
        const text = await answer('What does the handlerTimeout option do?', [
          { ...source(1, 'Server', server), headingPath: ['Factory', '`handlerTimeout`'] },
          source(2, 'Server', opening),
        ]);
        expect(text.startsWith('`handlerTimeout`: Defines how long a handler may run')).toBe(true);
      });
    });
  });
});
