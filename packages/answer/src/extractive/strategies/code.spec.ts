import { source, page, answer } from '../../../test/extractive';
import { ExtractiveAnswerGenerator } from '../../extractive-answer.generator';

describe(ExtractiveAnswerGenerator.name, () => {
  describe('code blocks in an answer', () => {
    it('opens with what the section says when its code matches the question better than any sentence', async () => {
      const migration = [
        '### Plugins cannot mix callbacks and promises',
        '',
        'In v2, plugins could mix the callback and promise styles, leading to surprises.',
        '',
        '```js',
        '// v2',
        'tidepool.register(async function (instance, opts, done) {',
        '  done();',
        '});',
        '```',
        '',
        '### Logger',
        '',
        'Plugins that log call the logger of their instance after it is created.',
      ].join('\n');
      const text = await answer('My async plugin that also calls done() broke after the v3 upgrade', [
        source(1, 'Migration', migration),
      ]);
      expect(text.startsWith('In v2, plugins could mix the callback and promise styles')).toBe(true);
    });

    it('answers from the code a problem report quotes, with the sentence after it, when no sentence matches', async () => {
      const content = [
        '## Your first server',
        '',
        "Let's write our first server:",
        '',
        '```js',
        "import Tidepool from 'tidepool'",
        'const app = Tidepool()',
        "app.get('/', () => 'hello world')",
        'await app.listen({ port: 3000 })',
        '```',
        '',
        'If your project uses ECMAScript modules, be sure to include "type": "module" in your package.json.',
      ].join('\n');
      const text = await answer(
        "node prints 'Cannot use import statement outside a module' for my hello world server with import Tidepool from 'tidepool'",
        [page(1, 'Getting started', 'getting-started', content)],
      );
      expect(text).toContain("import Tidepool from 'tidepool'");
      expect(text).toContain('be sure to include "type": "module" in your package.json [1].');
    });

    it('quotes a code block that sits among the chosen sentences, after the sentence introducing it', async () => {
      const content = [
        'The examples in this guide listen on the loopback address.',
        'To reach the server from elsewhere, bind it to the wildcard address like so:',
        '',
        '```js',
        "server.listen({ host: '0.0.0.0' })",
        '```',
        '',
        'Similarly, `::1` makes the server accept only local connections. ' +
          'Or `::` makes it accept connections from other machines over IPv6 too.',
      ].join('\n');
      const text = await answer('How do I make my server accept connections from other machines?', [
        page(1, 'Listening', 'listen', content),
      ]);
      expect(text).toContain(
        "bind it to the wildcard address like so [1]:\n\n```js\nserver.listen({ host: '0.0.0.0' })\n```",
      );
    });
  });
});
