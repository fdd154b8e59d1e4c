import { source, page, answer, HAND } from '../../../test/extractive';
import { ExtractiveAnswerGenerator } from '../../extractive-answer.generator';

describe(ExtractiveAnswerGenerator.name, () => {
  describe('definition and option questions', () => {
    const variant = page(
      1,
      'Microservices widgets',
      'microservices-widgets',
      '## Microservices widgets\n\nThere is no fundamental difference between microservices widgets and regular widgets. ' +
        'A widget in a microservice is registered the same way.',
    );
    const topic = page(
      2,
      'Widgets',
      'widgets',
      '## Widgets\n\nWidgets are used across the whole application. ' +
        'A widget is a class that renders one part of a page and keeps its own state. ' +
        'Each widget can be reused.',
    );

    it("opens a definition with the defining sentence of the topic's own page, not a variant page", async () => {
      const text = await answer('What is a widget?', [variant, topic]);
      expect(text.startsWith('A widget is a class that renders one part of a page')).toBe(true);
      expect(text.split('\n')[0]).toContain('[2]');
    });

    it("opens a definition with the first sentence of the topic's own page, whatever its form", async () => {
      const plugins = page(
        2,
        'Plugins',
        'reference/plugins',
        '## Plugins\n\nAcme can be extended with plugins, which add routes or helpers. ' +
          'Use `register` to add one.\n\n### In types\n\nA plugin is a function typed as `AcmePlugin`.',
      );
      const guide = page(
        1,
        'Types',
        'reference/types',
        '#### Plugin\n\nA plugin can be a set of routes or a helper, typed with `AcmePlugin`.',
      );
      const text = await answer('What is a plugin?', [guide, plugins], HAND);
      expect(text).toMatch(/^Acme can be extended with plugins/);
    });

    it('opens with the first of two defining sentences of one section', async () => {
      const content = [
        '## Introduction',
        '',
        'The second parameter of the render function is `Widget`. Widget is a core object that exposes',
        'the drawing functions. Widgets are drawn in order.',
      ].join('\n');
      const text = await answer('What is the Widget object?', [page(1, 'Widget', 'widget', content)]);
      expect(text.startsWith('The second parameter of the render function is `Widget` [1].')).toBe(true);
      expect(text).toContain('Widget is a core object that exposes the drawing functions [1].');
    });

    it('defines a member by its own entry, which names it without its receiver', async () => {
      const content = [
        '## Request',
        '',
        '- `socket` - The underlying connection of the incoming request.',
        '- `signal` - An `AbortSignal` that aborts when the client disconnects. Created on first access.',
        '',
        'Use `request.signal` with `fetch()` to cancel outbound calls when the handler timeout fires.',
      ].join('\n');
      const text = await answer("what's request.signal for?", [page(1, 'Request', 'request', content)]);
      expect(text).toMatch(/^`signal` - An `AbortSignal` that aborts when the client disconnects \[1\]/);
    });

    it('answers "what does server.after() do?" with the opening of its section "after"', async () => {
      const content = [
        '#### after',
        '',
        'Invoked when the current plugin and the plugins registered within it have finished loading.',
        '',
        '```js',
        'server.after(() => {})',
        '```',
        '',
        'In case `after()` is called without a function, it returns a `Promise`.',
      ].join('\n');
      const text = await answer('what does server.after() do?', [page(1, 'Server', 'server', content)]);
      expect(text).toMatch(
        /^Invoked when the current plugin and the plugins registered within it have finished loading/,
      );
    });

    it("opens a definition with the topic page's opening under a heading that spells its acronym", async () => {
      const content = [
        '## Long Term Support',
        '',
        "Acme's Long Term Support (LTS) is provided according to the schedule below:",
        '',
        '1. Major releases are supported for six months after their release date.',
        '2. Security fixes continue for six more months.',
        '',
        'Every release is tested against each runtime line covered by the LTS policy of that runtime.',
      ].join('\n');
      const text = await answer('What does the LTS policy promise?', [
        page(1, 'LTS', 'reference/lts', content),
      ]);
      expect(text).toMatch(/^Acme's Long Term Support \(LTS\) is provided/);
    });

    describe('a definition of a tool named in a list of tools', () => {
      it('opens with its glossary entry, not with a sentence naming it as an example', async () => {
        const capacity = 'Tools such as k6 or blaster can be used for the necessary load tests.';
        const benchmarking = [
          '## Benchmarking',
          '',
          'The modules we will use:',
          '- Blaster: An HTTP/1.1 load testing tool written in node.',
          '- Comparer: Checks out several branches and runs scripts.',
        ].join('\n');
        const text = await answer('What is Blaster used for?', [
          source(1, 'Capacity', capacity, 0.9),
          source(2, 'Benchmarking', benchmarking, 0.8),
        ]);
        expect(text.startsWith('Blaster: An HTTP/1.1 load testing tool written in node [2].')).toBe(true);
      });
    });
  });
});
