import { source, page, answer } from '../../../test/extractive';
import { ExtractiveAnswerGenerator } from '../../extractive-answer.generator';

describe(ExtractiveAnswerGenerator.name, () => {
  describe('a line added after the chosen ones: default, step, naming lead, denial', () => {
    it("adds the section's Default line when the question asks for a default", async () => {
      const content = [
        '### `payloadCap`',
        '',
        '+ Default: `1048576` (1MiB)',
        '',
        'Defines the maximum payload size, in bytes, the server accepts.',
        'Larger request bodies are refused with a payload size error.',
      ].join('\n');
      const text = await answer('What is the default maximum request payload size?', [
        page(1, 'Server', 'server', content),
      ]);
      expect(text).toContain('1048576');
      expect(text).toContain('maximum payload size');
    });

    it('follows a matched description with the instruction a few sentences later that names the API', async () => {
      const content = [
        '## Body parsers',
        '',
        'Tidepool natively reads JSON and plain text request bodies. These default readers can be replaced.',
        '',
        'Unknown formats are refused with an error.',
        '',
        'To read other formats, use the `addBodyReader` API or an existing plugin.',
      ].join('\n');
      const text = await answer(
        'How do I accept request bodies in formats other than JSON, like plain text?',
        [page(1, 'Body', 'body', content)],
      );
      expect(text).toContain('Tidepool natively reads JSON and plain text request bodies [1].');
      expect(text).toContain('To read other formats, use the `addBodyReader` API or an existing plugin [1].');
    });

    it('quotes the instruction right before the matched sentence of its paragraph', async () => {
      const content = [
        '### Error handling',
        '',
        'When the body fails schema validation, Tidepool answers with a 400 response on its own.',
        '',
        'To handle the error inside the route, specify the `keepValidationError` option. If there is a validation error, the `validationError` property of the request holds it, and the handler decides what to send.',
      ].join('\n');
      const text = await answer(
        'I want to look at the validation error in my handler and decide what to send instead of the 400. How?',
        [page(1, 'Validation', 'validation', content)],
      );
      expect(text).toContain('specify the `keepValidationError` option [1].');
    });

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

    it('follows a described surprise with the pointer to the option that changes it', async () => {
      const content = [
        '## Mounting at the root of a prefix',
        '',
        'The `/` route behaves differently depending on whether the mount prefix ends with `/`.',
        'With a prefix `/shop/`, a `/` route matches only `/shop/`. With a prefix `/shop`, it matches both.',
        '',
        'See the `mountTrailingSlash` route option above to change this behavior.',
      ].join('\n');
      const text = await answer('My mounted / route answers on /shop but not on /shop/', [
        page(1, 'Routes', 'routes', content),
      ]);
      expect(text).toContain('See the `mountTrailingSlash` route option above to change this behavior [1].');
    });

    it('follows a described problem with the "To make it work," step that names a value in code', async () => {
      const content = [
        '## Containers',
        '',
        'The health probe of the orchestrator uses the container address as its host by default.',
        'The probe cannot reach the server in this case.',
        'To make it work, the server must listen on `0.0.0.0` instead of the loopback address.',
      ].join('\n');
      const text = await answer('My health probe cannot reach the server, why?', [
        page(1, 'Deploy', 'deploy', content),
      ]);
      expect(text).toContain('To make it work, the server must listen on `0.0.0.0`');
    });

    it('follows a removal note with the "You should use … instead" step a migration guide gives', async () => {
      const content = [
        '## Removed `widget.getSize()`',
        '',
        'The `widget.getSize()` method has been removed in v3.',
        'You should use `widget.size` instead.',
      ].join('\n');
      const text = await answer('widget.getSize is not a function anymore', [
        page(1, 'Migration', 'migration', content),
      ]);
      expect(text).toContain('You should use `widget.size` instead [1].');
    });

    describe('a yes-no question', () => {
      it('quotes the denial that follows the matched description in its section', async () => {
        const routing = [
          '## `caseInsensitive`',
          '',
          'When `true`, paths are matched in lowercase and route keys keep their letter casing.',
          'Route keys are compared after the lowercase matching of paths and keys.',
          'Paths and route keys are lowercased for matching only.',
          'Matching lowercase paths is slower for route keys with many parameters.',
          'This option does not touch query strings.',
        ].join('\n');
        const text = await answer('Are query keys lowercased when route paths match in lowercase?', [
          source(1, 'Routing', routing),
        ]);
        expect(text).toContain('This option does not touch query strings');
      });
    });
  });
});
