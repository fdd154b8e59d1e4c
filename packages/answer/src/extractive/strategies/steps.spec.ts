import { page, answer } from '../../../test/extractive';
import { ExtractiveAnswerGenerator } from '../../extractive-answer.generator';

describe(ExtractiveAnswerGenerator.name, () => {
  describe('how-to questions', () => {
    it('quotes the steps of the section whose heading matches, in document order, with its first code block', async () => {
      const guide = page(
        1,
        'Widgets guide',
        'guide',
        [
          '## Caching widgets',
          '',
          'Widgets cache their state in memory. The cache of a plugin is cleared on restart.',
          '',
          '## Setting up a widget plugin',
          '',
          'Install the package first.',
          '',
          '```sh',
          'npm i widget-plugin',
          '```',
          '',
          'Then register the plugin with the app. Finally, add a widget to a page.',
          '',
          '```js',
          "app.register(require('widget-plugin'))",
          '```',
        ].join('\n'),
      );
      const text = await answer('How do I set up the widget plugin?', [guide]);
      expect(text.startsWith('Install the package first [1].')).toBe(true);
      expect(text).toContain('```sh\nnpm i widget-plugin\n```');
      expect(text.indexOf('npm i widget-plugin')).toBeLessThan(text.indexOf('Then register the plugin'));
      expect(text).not.toContain("app.register(require('widget-plugin'))");
      expect(text).not.toContain('cache');
    });

    it('answers a how-to with the heading and code block of a section that has nothing else', async () => {
      const benchmarking = page(
        1,
        'Benchmarking',
        'benchmarking',
        [
          '## Benchmarking',
          '',
          'Benchmarks measure how a change affects performance.',
          '',
          '### Run the benchmark in the current branch',
          '```sh',
          'npm run benchmark',
          '```',
          '',
          '### Run the benchmark against different Node.js versions ✨',
          '```sh',
          'npx -p node@10 -- npm run benchmark',
          '```',
          '',
          '### Run the benchmark in different branches against different Node.js versions',
          '```sh',
          'branchcmp --rounds 2 --script "npm run benchmark"',
          '```',
        ].join('\n'),
      );
      const text = await answer('How can I benchmark against an older Node.js version?', [benchmarking]);
      expect(text.startsWith('Run the benchmark against different Node.js versions [1]:')).toBe(true);
      expect(text).toContain('npx -p node@10 -- npm run benchmark');
      expect(text).not.toContain('branchcmp');
    });
  });
});
