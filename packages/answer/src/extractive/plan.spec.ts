import { source, page, request, collect, answer, HAND } from '../../test/extractive';
import { ExtractiveAnswerGenerator, NOT_COVERED_ANSWER } from '../extractive-answer.generator';

describe(ExtractiveAnswerGenerator.name, () => {
  describe('reading the question: the words it weighs, what it excludes, its conversation', () => {
    describe('a question naming products by name', () => {
      const deploy = [
        '## Deploy',
        '',
        'A container platform runs an app deployed from its image with little to no code changes.',
        '',
        'The platform scales the containers with the traffic they receive.',
        'Logs are collected by the platform and kept for a week.',
        'Each container gets its memory and its share of processor time.',
        'Health checks restart a container that stops answering.',
        '',
        'Middleware written for Express works through the compatibility plugin.',
      ].join('\n');

      it('is not covered when no source mentions any of them', async () => {
        const text = await answer('How do I deploy my app to Herokuish with a Procfile?', [
          source(1, 'Deploy', deploy),
        ]);
        expect(text.startsWith(NOT_COVERED_ANSWER)).toBe(true);
      });

      it('is answered when the sources mention one of them', async () => {
        const text = await answer('Can I use Express or Connect middleware?', [source(1, 'Deploy', deploy)]);
        expect(text).toContain('compatibility plugin');
      });
    });

    it('answers a problem that began "after upgrading" and concerns values "without" something', async () => {
      const migration = [
        '## Breaking changes',
        '',
        'All v2 deprecations have been removed and no longer work after upgrading.',
        '',
        '### `date-time` formats enforce a timezone',
        '',
        'The updated validator now enforces a timezone in the `time` and `date-time` formats.',
        'A workaround is the `iso-date-time` format, where the timezone is optional.',
        '',
        '### Plugins',
        '',
        'Plugins may no longer mix callbacks and promises.',
        'The parameters object no longer has a prototype.',
        'Logger options moved to their own constructor argument.',
      ].join('\n');
      const text = await answer(
        'After upgrading to v3 my date-time fields without a timezone fail validation',
        [source(1, 'Migration', migration)],
      );
      expect(text).toContain('`iso-date-time`');
    });

    it('reads "earlier" and "previously" as when, not what, so a covered question is answered', async () => {
      const headers = [
        '## Headers',
        '',
        'Every reply carries the headers you set on it.',
        '',
        '- `.removeHeader(key)` - Remove the value of a previously set header.',
        '- `.hasHeader(name)` - Determine if a header has been set.',
      ].join('\n');
      const text = await answer('How do I remove a cookie header I set earlier?', [
        source(1, 'Reply', headers),
        source(2, 'Cookies', 'Cookies are read from the request by a plugin.'),
      ]);
      expect(text).toContain('removeHeader');
    });

    it('reads "get rid of" as disable or remove, the words pages use, and answers', async () => {
      const warnings = [
        '## Warnings',
        '',
        'Tidepool prints warnings with the `TPDEP` prefix for deprecated features.',
        'Warnings can also be disabled, though it is not recommended.',
      ].join('\n');
      const text = await answer('I get TPDEP warnings in my terminal, how do I get rid of them?', [
        source(1, 'Warnings', warnings),
        source(2, 'Terminal', 'The terminal shows the server address after start.'),
      ]);
      expect(text).toContain('Warnings can also be disabled');
    });

    describe('a question that excludes something ("without …")', () => {
      it('answers with what stands in place of the excluded thing, not with the thing', async () => {
        const text = await answer('How can I test my routes without actually listening?', [
          source(
            1,
            'Running server',
            'Routes can be tested once the server is listening, with `app.listen()`.',
          ),
          source(
            2,
            'Injection',
            'To test routes, the `app.inject()` method sends a fake request and returns the response.',
          ),
        ]);
        expect(text.startsWith('To test routes, the `app.inject()` method')).toBe(true);
      });

      it('puts first a sentence that weighs the excluded thing against an alternative', async () => {
        const text = await answer(
          'Does HTTP/2 work without HTTPS?',
          [
            source(1, 'Browsers', 'Browsers only speak HTTP/2 over HTTPS, with a trusted certificate.'),
            source(2, 'HTTP2', 'Acme supports HTTP/2 over HTTPS (h2) or plaintext (h2c).'),
          ],
          HAND,
        );
        expect(text.startsWith('Acme supports HTTP/2 over HTTPS (h2) or plaintext (h2c)')).toBe(true);
      });
    });

    it('reads "my hook throws" as the error the page describes', async () => {
      const content = [
        '## onBoot',
        '',
        'Triggered when the server starts accepting requests. The hooks run one after another.',
        'If a hook function causes an error, it is logged and ignored, and the next hook runs.',
        'Hook functions receive a callback, `done`, to call when they are finished, and they may also return a promise.',
        'This hook does not run when the server is started by the test helper.',
      ].join('\n');
      const text = await answer('If one of my onBoot hooks throws, does the server stop?', [
        page(1, 'Hooks', 'hooks', content),
      ]);
      expect(text).toContain('it is logged and ignored');
    });

    it('opens an answer to "how long …?" with the sentence that states the amount', async () => {
      const content = [
        '## Support',
        '',
        'The release notes of every Tidepool release are published on the release page of the project.',
        'A major release is supported for a minimum period of six months after it is published.',
        'Security fixes of a release are reviewed by the maintainers.',
      ].join('\n');
      const text = await answer(
        'How long is a Tidepool major release supported after it is published?',
        [page(1, 'Support', 'support', content)],
        HAND,
      );
      expect(text).toMatch(/^A major release is supported for a minimum period of six months/);
    });

    describe('a follow-up with the conversation as context', () => {
      const acme = source(
        1,
        'Acme server',
        [
          '## Install',
          'Install Acme with `npm install acme-server` and start it with `acme start`.',
          '## Requirements',
          'Acme needs at least 512 MB of memory and one CPU core.',
          'Acme runs on Linux and macOS.',
        ].join('\n\n'),
      );

      it("answers the follow-up about its own subject, not with the earlier question's sentence", async () => {
        const follow = 'And how much memory does it need?';
        const withContext = await collect(
          new ExtractiveAnswerGenerator().generate({ ...request(follow, [acme]), context: 'install Acme' }),
        );
        expect(withContext.join('')).toMatch(/^Acme needs at least 512 MB of memory/);
        expect(withContext.join('')).not.toContain('npm install');
      });

      it("answers a follow-up its sources cover though they never use the earlier topic's words", async () => {
        const schemas = source(
          1,
          'Shared schemas',
          [
            '## Reuse',
            'The `addSchema` API adds a shared schema that you can reuse by its `$id`.',
            '## Fluent schemas',
            'A fluent builder writes schemas in code instead of object literals.',
            '## Schema formats',
            'Schemas are JSON Schema documents.',
            '## Serialization',
            'A response schema makes serialization faster.',
          ].join('\n\n'),
        );
        const text = (
          await collect(
            new ExtractiveAnswerGenerator().generate({
              ...request('and how do I reuse a schema across routes?', [schemas]),
              context: 'validate the request body',
            }),
          )
        ).join('');
        expect(text).toMatch(/^The `addSchema` API adds a shared schema/);
      });

      it("opens with the follow-up's own words when the carried topic's sentence scores higher", () => {
        const errors = source(
          1,
          'Errors',
          [
            '## Error handler',
            'Use `setErrorHandler` to handle errors thrown in routes: the handler gets the error, the request and the reply.',
            'Errors thrown in routes reach the error handler of their plugin.',
          ].join('\n\n'),
          0.9,
        );
        const missing = source(
          2,
          'Missing pages',
          '## Not found\n\nUse `setNotFoundHandler` to answer with a 404 when no route matches.',
          0.3,
        );
        const text = new ExtractiveAnswerGenerator(HAND)
          .compose('what about 404s?', [errors, missing], 'handle errors thrown routes setErrorHandler')
          .join('');
        expect(text).toMatch(/^Use `setNotFoundHandler` to answer with a 404/);
      });

      it('lets the context decide between sentences the follow-up alone cannot tell apart', () => {
        const generator = new ExtractiveAnswerGenerator({ maxSentences: 1 });
        const servers = source(
          1,
          'Deploying',
          [
            'Widgets can be deployed on a single server.',
            'Gadgets can be deployed on a cluster of servers.',
          ].join(' '),
        );
        expect(generator.compose('and how are they deployed?', [servers], 'gadgets').join('')).toContain(
          'Gadgets',
        );
        expect(generator.compose('and how are they deployed?', [servers], 'widgets').join('')).toContain(
          'Widgets',
        );
      });
    });
  });
});
