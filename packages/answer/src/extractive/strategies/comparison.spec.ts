import { page, answer } from '../../../test/extractive';
import { ExtractiveAnswerGenerator } from '../../extractive-answer.generator';

describe(ExtractiveAnswerGenerator.name, () => {
  describe('comparisons', () => {
    it('answers a comparison with a sentence that names both sides, not one that only says "difference"', async () => {
      const hooks = page(
        1,
        'Hooks',
        'hooks',
        'There is a difference in how errors are logged in production. ' +
          'The `onRequest` hook has no access to the body. ' +
          'The `onRequest` hook runs before parsing, while `preHandler` runs after the body is parsed and validated.',
      );
      const text = await answer('What is the difference between onRequest and preHandler hooks?', [hooks]);
      expect(text.startsWith('The `onRequest` hook runs before parsing, while `preHandler` runs after')).toBe(
        true,
      );
      expect(text).not.toContain('errors are logged');
    });

    it('follows the sentence naming both sides with the rest of its list entry, which says why', async () => {
      const performance = page(
        1,
        'Performance',
        'performance',
        [
          '## Slow paths',
          '',
          '- Prefer static routes on hot paths. Regular expression routes are expensive.',
          '- Prefer Tidepool hooks over generic middleware when possible. The middleware adapters work,',
          '  but native integrations are typically better for performance-sensitive paths.',
          '- Define response schemas to speed up serialization.',
        ].join('\n'),
      );
      const text = await answer('Is a hook or a generic middleware faster for hot paths?', [performance]);
      expect(text).toContain('Prefer Tidepool hooks over generic middleware when possible [1].');
      expect(text).toContain('native integrations are typically better');
    });

    it("answers a comparison of two values of a setting with the setting's purpose first", async () => {
      const content = [
        '### `onSecret`',
        '',
        "+ Default: `'error'`",
        '',
        'Defines what the parser does with a JSON key named `__secret__`.',
        '',
        "Possible values are `'error'`, `'remove'`, or `'ignore'`.",
      ].join('\n');
      const text = await answer('onSecret error vs remove, what does each do?', [
        page(1, 'Server', 'server', content),
      ]);
      expect(text).toMatch(
        /^`onSecret`: Defines what the parser does with a JSON key named `__secret__` \[1\]\./,
      );
      expect(text).toContain("Possible values are `'error'`, `'remove'`, or `'ignore'` [1].");
    });

    it("compares two names the page defines with each one's own entry", async () => {
      const content = [
        '## Request',
        '',
        '- `peer` - The address of the client, read from the socket (or from the Via header when `proxyMode` is on).',
        '- `peers` - A list of addresses from the Via header (only when `proxyMode` is on).',
        '- `route` - The matched route.',
        '',
        '> Note: `request.peer`, `request.peers` and `request.route` come from request metadata and are read-only.',
      ].join('\n');
      const text = await answer("request.peer vs request.peers, what's the difference?", [
        page(1, 'Request', 'request', content),
      ]);
      expect(text).toMatch(/^`peer` - The address of the client/);
      expect(text).toContain('`peers` - A list of addresses from the Via header');
    });

    it("compares two hooks with the one's own entry continued past an opening it shares", async () => {
      const hooks = [
        '### preStop',
        '',
        'Triggered when `server.stop()` is called. At this point new requests are refused, but requests in progress still run.',
        '',
        '### Other hooks',
        '',
        'Hooks can be added to any plugin.',
      ].join('\n');
      const lifecycle = [
        '## Shutdown',
        '',
        'When `server.stop()` is called, the server runs the `preStop` hooks, drains connections, then runs the `onStop` hooks.',
      ].join('\n');
      const text = await answer('preStop vs onStop: when does each one run?', [
        page(1, 'Hooks', 'hooks', hooks),
        page(2, 'Lifecycle', 'lifecycle', lifecycle),
      ]);
      expect(text).toContain('runs the `preStop` hooks, drains connections');
      expect(text).toContain(
        'At this point new requests are refused, but requests in progress still run [1].',
      );
    });
  });
});
