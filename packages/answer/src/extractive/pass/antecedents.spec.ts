import { source, page, answer, HAND } from '../../../test/extractive';
import { ExtractiveAnswerGenerator } from '../../extractive-answer.generator';

describe(ExtractiveAnswerGenerator.name, () => {
  describe('what a quoted sentence cannot be read without', () => {
    it('quotes the sentence that names what a chosen one counts back to ("these three fields")', async () => {
      const content = [
        '#### What the default error handler sends',
        '',
        'The default error handler writes a JSON body with the `status`, `title` and `detail` fields.',
        '',
        '```js',
        "app.get('/', () => { throw new Error('boom') })",
        '```',
        '',
        'The built-in serializer writes only these three fields, so the stack trace is never part of the error response.',
      ].join('\n');
      const text = await answer('Does Tidepool put the stack trace in error responses?', [
        page(1, 'Errors', 'errors', content),
      ]);
      expect(text).toMatch(
        /^The default error handler writes a JSON body with the `status`, `title` and `detail` fields \[1\]/,
      );
      expect(text).toContain('only these three fields');
    });

    describe('a sentence that cannot be read alone', () => {
      it('comes after the sentence its "This" points back to, which names the thing', async () => {
        const validation = [
          '## Messages from other validators',
          '',
          'Errors from the built-in validator go through the `schemaErrorFormatter` function,',
          'which turns them into readable text. This may give odd messages with other validators.',
        ].join('\n');
        const text = await answer('Why are my messages odd with other validators?', [
          source(1, 'Validation', validation),
        ]);
        expect(text).toContain('`schemaErrorFormatter` function');
        expect(text.indexOf('schemaErrorFormatter')).toBeLessThan(text.indexOf('This may give odd messages'));
      });

      it('comes after the sentence naming what its "Enable it" is about', async () => {
        const tuning = [
          '## Slow endpoints',
          '',
          '- Keep the `collectAllErrors` validator flag off by default. Enable it only when detailed',
          '  feedback is needed, and avoid it on latency-sensitive endpoints.',
        ].join('\n');
        const text = await answer('Which validator setting should stay off on latency-sensitive endpoints?', [
          source(1, 'Tuning', tuning),
        ]);
        expect(text).toContain('`collectAllErrors`');
        expect(text.indexOf('collectAllErrors')).toBeLessThan(text.indexOf('Enable it only'));
      });

      it('follows a sentence naming its section without the section name put in front of it again', async () => {
        const router = [
          '### `ignoreDuplicateSlashes`',
          '',
          'You can use the `ignoreDuplicateSlashes` option to drop extra slashes. It removes duplicate slashes',
          'in the route path and in the request URL.',
        ].join('\n');
        const text = await answer('What removes duplicate slashes in the request URL?', [
          source(1, 'Server', router),
        ]);
        expect(text).toContain('You can use the `ignoreDuplicateSlashes` option');
        expect(text).toContain('It removes duplicate slashes');
        expect(text).not.toContain('`ignoreDuplicateSlashes`: It removes');
      });

      it('comes after the sentence introducing its list when its entry names a value', async () => {
        const shutdown = [
          '## Shutdown',
          '',
          '1. Connection draining follows the `forceCloseConnections` option:',
          '   - `"idle"` — idle keep-alive connections are closed at once.',
          '   - `true` — every connection is destroyed.',
          '2. The server stops listening.',
        ].join('\n');
        const text = await answer(
          'What closes idle keep-alive connections?',
          [source(1, 'Server', shutdown)],
          HAND,
        );
        expect(text.startsWith('Connection draining follows the `forceCloseConnections` option')).toBe(true);
        expect(text).toContain('idle keep-alive connections are closed at once');
      });
    });
  });
});
