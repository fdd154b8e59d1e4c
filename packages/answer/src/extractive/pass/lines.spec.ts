import { page, answer } from '../../../test/extractive';
import { ExtractiveAnswerGenerator } from '../../extractive-answer.generator';

describe(ExtractiveAnswerGenerator.name, () => {
  describe('a line added before the chosen ones: the naming lead', () => {
    it('opens a how-to with the sentence before its lead that names what to use', async () => {
      const content = [
        '## Hooks in plugins',
        '',
        'Hooks added inside a plugin only run for its own routes.',
        '',
        'Another way is to use the onMount hook to adjust routes from inside the plugin. Every time a new route is mounted, you can read and change its settings.',
      ].join('\n');
      const text = await answer('How can I get notified every time a route is mounted?', [
        page(1, 'Plugins', 'plugins', content),
      ]);
      expect(text).toMatch(/^Another way is to use the onMount hook/);
    });
  });
});
