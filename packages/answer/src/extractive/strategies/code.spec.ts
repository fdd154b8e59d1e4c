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

    it('quotes no example from a page that none of the chosen sentences come from', async () => {
      const guide =
        '## Enable TLS\n\nSet the `https` option to an object with your key and certificate to serve over TLS.';
      const proxy = [
        '## Caching backends',
        '',
        'Backends keep responses for a while.',
        '',
        '```conf',
        '# serve TLS requests with a certificate and key',
        'server backend 10.0.0.2:80 tls certificate',
        '```',
      ].join('\n');
      const text = await answer('How do I serve over TLS with a certificate?', [
        page(1, 'Server', 'server', guide),
        page(2, 'Proxy', 'proxy', proxy),
      ]);
      expect(text).toContain('Set the `https` option');
      expect(text).not.toContain('server backend');
    });

    it('shows the fix after the code a problem report matches when the section pairs them', async () => {
      const content = [
        '### The query object no longer has a prototype',
        '',
        'In v2 the `query` object had a prototype. This is no longer the case in v3.',
        'Calling a function it inherited, such as `hasOwnProperty`, fails after moving to v3.',
        '',
        '```js',
        '// v2',
        "app.get('/', (req) => req.query.hasOwnProperty('page'))",
        '```',
        '',
        '```js',
        '// v3',
        "app.get('/', (req) => Object.hasOwn(req.query, 'page'))",
        '```',
      ].join('\n');
      const text = await answer('req.query.hasOwnProperty is not a function after moving to v3', [
        page(1, 'Migration', 'migration', content),
      ]);
      expect(text).toContain("req.query.hasOwnProperty('page')");
      expect(text).toContain("Object.hasOwn(req.query, 'page')");
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

    describe('a how-to or troubleshooting answer whose sentences show no code', () => {
      const streams = [
        '#### Streams',
        '',
        'When sending a stream, Fastify sets no content type unless you choose one.',
        '',
        '```js',
        "fastify.get('/file', async (request, reply) => {",
        '  // Stream the file back to the client',
        "  const stream = fs.createReadStream('some-file')",
        '  return reply.send(stream)',
        '})',
        '```',
      ].join('\n');
      const overview = source(
        1,
        'Guide',
        'You can stream a file or a buffer back to the client from any handler.',
      );

      it('ends with the example of the first sources that matches the question best', async () => {
        const text = await answer('How do I stream a file back to the client?', [
          overview,
          source(2, 'Reply', streams),
        ]);
        expect(text.startsWith('You can stream a file')).toBe(true);
        expect(text).toContain("fs.createReadStream('some-file')");
      });

      it('gets no example from a source below the first three', async () => {
        const others = [2, 3, 4].map((n) => source(n, 'Other', `Handlers answer requests in section ${n}.`));
        const text = await answer('How do I stream a file back to the client?', [
          overview,
          ...others,
          source(5, 'Reply', streams),
        ]);
        expect(text).not.toContain('createReadStream');
      });

      it('takes no transcript of a response for an example', async () => {
        const transcript = [
          '## Streams',
          '',
          'The server answers like this:',
          '',
          '```sh',
          'HTTP/1.1 200 OK',
          'Content-Type: application/octet-stream',
          'X-Stream: file back to the client',
          '```',
        ].join('\n');
        const text = await answer('How do I stream a file back to the client?', [
          overview,
          source(2, 'Out', transcript),
        ]);
        expect(text).not.toContain('HTTP/1.1 200 OK');
      });

      it('takes no example that shares only one word with the question', async () => {
        const pipes = [
          '## Pipes',
          '',
          'Pipes connect things.',
          '',
          '```js',
          'const stream = pipe(source)',
          '```',
        ].join('\n');
        const text = await answer('How do I stream a file?', [overview, source(2, 'Pipes', pipes)]);
        expect(text).not.toContain('pipe(source)');
      });

      it('takes no signature with a placeholder body for an example', async () => {
        const skeleton = [
          '## Handlers',
          '',
          'Every handler has this shape.',
          '',
          '```js',
          "fastify.get('/file', (request, reply) => {",
          '  // stream the file back to the client',
          '  // Some code',
          '})',
          '```',
        ].join('\n');
        const text = await answer('How do I stream a file back to the client?', [
          overview,
          source(2, 'Reply', skeleton),
        ]);
        expect(text).not.toContain('// Some code');
      });

      it('is left alone when the question is not a how-to or troubleshooting question', async () => {
        const text = await answer('Can I stream a file back to the client?', [
          overview,
          source(2, 'Reply', streams),
        ]);
        expect(text).not.toContain('createReadStream');
      });
    });
  });
});
