import { KbqaError, type AnswerRequest, type AnswerSource } from '@kbqa/core';
import { readDoc, section } from '../test/corpus';
import {
  ExtractiveAnswerGenerator,
  MIN_PASSAGE_COVERAGE,
  NOT_COVERED_ANSWER,
  SEE_ALSO,
  cite,
  isDefining,
  namesWhatDocsLack,
} from './extractive-answer.generator';

function source(n: number, title: string, content: string, score = 0.8): AnswerSource {
  return { n, title, content, score, link: `https://tidepool.example/docs/${n}` };
}

function request(
  question: string,
  sources: AnswerSource[],
  signal = new AbortController().signal,
): AnswerRequest {
  return { question, sources, history: [], signal };
}

async function collect(iterable: AsyncIterable<string>): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of iterable) pieces.push(piece);
  return pieces;
}

async function answer(question: string, sources: AnswerSource[]): Promise<string> {
  return (await collect(new ExtractiveAnswerGenerator().generate(request(question, sources)))).join('');
}

/** The answer to a request that carries `unknownWords` (undefined: not looked up). */
async function answerKnowing(
  question: string,
  sources: AnswerSource[],
  unknownWords: string[] | undefined,
  generator = new ExtractiveAnswerGenerator(),
): Promise<string> {
  return (await collect(generator.generate({ ...request(question, sources), unknownWords }))).join('');
}

// Sections of the repository's docs corpus (fixtures/docs-corpus), each holding a known answer.
const plugins = (): string => section('reference/plugins.md', 'Plugin options');
const scope = (): string => readDoc('reference/plugins.md').split('## Plugin options')[0] ?? '';
const reply = (): string => section('reference/reply.md', 'Introduction');
const alternatives = (): string => section('reference/middleware.md', 'Middleware alternatives');
const firstServer = (): string => section('guides/getting-started.md', 'Your first server');

/** Every citation marker in a text. */
function citations(text: string): number[] {
  return [...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
}

describe(ExtractiveAnswerGenerator.name, () => {
  describe('with a curated (taught) answer first', () => {
    const taught = (content: string): AnswerSource => ({
      ...source(1, 'How do I reset my password?', content, 1),
      curated: true,
    });

    it('answers with the taught answer verbatim, cited, and nothing else', async () => {
      const text = await answer('how can I reset my password', [
        taught('Open Settings > Security and click Reset password.'),
        source(2, 'Reply', reply()),
      ]);
      expect(text).toBe('Open Settings > Security and click Reset password. [1]');
    });

    it('cites a taught answer ending in a code block on a line of its own', async () => {
      const content = 'Run:\n\n```sh\nkbqa reset\n```';
      expect(await answer('reset password', [taught(content)])).toBe(`${content}\n\n[1]`);
    });

    it('ignores a curated flag on a source that is not first', async () => {
      const text = await answer('What does register create by default?', [
        source(7, 'Plugins', scope()),
        { ...source(8, 'Taught', 'Something else entirely.'), curated: true },
      ]);
      expect(text).not.toContain('Something else entirely');
    });
  });

  it('answers with the sentence that answers the question, cited with the source number', async () => {
    const text = await answer('What does register create by default?', [
      source(4, 'Reply', reply()),
      source(7, 'Plugins', scope()),
      source(9, 'Middleware', alternatives()),
    ]);
    expect(text).toContain('By default, `register` creates an _isolated context_ for the plugin');
    expect(text).toMatch(/_isolated context_[^[]*\[7\]/);
    expect(new Set(citations(text))).toEqual(new Set([7]));
  });

  it('prefers the sentence that answers among related ones', async () => {
    const text = await answer('How do I set the status code of a reply?', [
      source(1, 'Getting started', firstServer()),
      source(2, 'Reply', reply()),
    ]);
    const firstSentence = text.split('\n')[0] ?? '';
    expect(firstSentence.startsWith('`.status(code)` - Sets the status code [2].')).toBe(true);
  });

  it('cites each sentence with the number of the source it comes from', async () => {
    const sources = [source(2, 'Middleware', alternatives()), source(5, 'Reply', reply())];
    const cors = await answer('Which plugin replaces the cors middleware?', sources);
    expect(cors).toContain('`@tidepool/cors` replaces the `cors` middleware');
    expect(new Set(citations(cors))).toEqual(new Set([2]));
    const status = await answer('How do I set the status code of a reply?', sources);
    expect(status).toContain('`.status(code)` - Sets the status code [5].');
    expect(new Set(citations(status))).toEqual(new Set([5]));
  });

  it('keeps code identifiers and fenced code blocks intact', async () => {
    const content = plugins();
    const text = await answer('How do I register a plugin with options using app.register?', [
      source(1, 'Plugins', content),
    ]);
    expect(text).toContain('`app.register`');
    const blocks = text.match(/```[\s\S]*?```/g) ?? [];
    expect(blocks).toHaveLength(1);
    for (const block of blocks) expect(content).toContain(block);
    expect(text).not.toMatch(/app\. register|parent\. db/);
  });

  it('quotes no code block when the question does not ask how', async () => {
    const text = await answer('What options does app.register support?', [source(1, 'Plugins', plugins())]);
    expect(text).not.toContain('```');
    expect(citations(text).length).toBeGreaterThan(0);
  });

  it('says the documentation does not cover the question when there are no sources', async () => {
    expect(await answer('How do I register a plugin?', [])).toBe(NOT_COVERED_ANSWER);
  });

  it('says the documentation does not cover an unrelated question instead of quoting unrelated text', async () => {
    const sources = [
      source(1, 'Plugins', plugins()),
      source(2, 'Reply', reply()),
      source(3, 'Getting started', firstServer()),
    ];
    expect(await answer('What is a good pizza dough recipe?', sources)).toBe(NOT_COVERED_ANSWER);
    expect(await answer('How long should I bake bread in a server oven?', sources)).toBe(NOT_COVERED_ANSWER);
  });

  describe('a question naming what no passage of the project has (unknownWords)', () => {
    const deploy = [
      '## Deployment',
      '',
      'Run your server app with `node server.js` and put a reverse proxy in front of it.',
    ].join('\n');
    const ask = (question: string, unknownWords: string[]): Promise<string> =>
      answerKnowing(question, [source(1, 'Deployment', deploy)], unknownWords);

    it('is not covered, with the closest pages, for a name the docs never use', async () => {
      const text = await ask('How do I run my server app in cluster mode with PM2?', ['PM2', 'cluster']);
      expect(text.startsWith(NOT_COVERED_ANSWER)).toBe(true);
      expect(text).toContain(SEE_ALSO);
      expect(await ask('How do I run my server app with PM2?', ['PM2'])).toMatch(/^I couldn't find/);
    });

    it('does not count the one plain word no page uses against the passages', async () => {
      const sources = [
        source(1, 'Logging', '## Pretty logs\n\nPipe the log lines through `pretty-log` while developing.'),
        source(2, 'Testing', '## Watching\n\nRestart the tests on every change of the source files.'),
      ];
      // The floor held where it is without a lookup, to see the word's own effect.
      const ask = (unknownWords: string[]) =>
        answerKnowing(
          'How do I get colorized log lines on every restart?',
          sources,
          unknownWords,
          new ExtractiveAnswerGenerator({ minCoverage: MIN_PASSAGE_COVERAGE }),
        );
      expect(await ask([])).toMatch(/^I couldn't find/);
      expect(await ask(['colorized'])).toContain('`pretty-log`');
    });

    it('lowers the coverage floor once the words were looked up, and only then', async () => {
      const sources = [
        source(1, 'Logging', '## Pretty logs\n\nPipe the log lines through `pretty-log` while developing.'),
        source(2, 'Testing', '## Watching\n\nRestart the tests on every change of the source files.'),
      ];
      const question = 'How do I get readable log lines on every restart of the app?';
      const ask = (unknownWords?: string[]) => answerKnowing(question, sources, unknownWords);
      expect(await ask()).toMatch(/^I couldn't find/);
      expect(await ask([])).toContain('`pretty-log`');
    });

    it('is answered when the one word no page uses is a plain word or a number', async () => {
      for (const [question, unknown] of [
        ['How do I run my server app, colorized?', ['colorized']],
        ['How do I run my server app behind a proxy on 8443?', ['8443']],
      ] as const) {
        expect(await ask(question, [...unknown])).toContain('Run your server app with `node server.js`');
      }
    });
  });

  it('reads words written as names: capitalized inside the sentence, acronyms, mixed case, letters and digits', () => {
    const q = 'Terraform: can I deploy with NestJS, LDAP, gRPC, PM2 or Heroku?';
    for (const word of ['NestJS', 'LDAP', 'gRPC', 'PM2', 'Heroku'])
      expect(namesWhatDocsLack(q, [word])).toBe(true);
    // The first word of the question is capitalized as any first word is; a plain word is a paraphrase.
    expect(namesWhatDocsLack(q, ['Terraform'])).toBe(false);
    expect(namesWhatDocsLack(q, ['deploy'])).toBe(false);
    expect(namesWhatDocsLack(q, ['deploy', 'can'])).toBe(true);
    expect(namesWhatDocsLack(q, ['415'])).toBe(false);
    expect(namesWhatDocsLack(q, [])).toBe(false);
  });

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

  it('streams the answer in several pieces', async () => {
    const generator = new ExtractiveAnswerGenerator();
    const pieces = await collect(
      generator.generate(request('What does the reply object expose?', [source(1, 'Reply', reply())])),
    );
    expect(pieces.length).toBeGreaterThan(1);
  });

  it('stops with an ABORTED error when the signal aborts between pieces', async () => {
    const controller = new AbortController();
    const generator = new ExtractiveAnswerGenerator();
    const iterator = generator
      .generate(
        request('What does the reply object expose?', [source(1, 'Reply', reply())], controller.signal),
      )
      [Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    controller.abort();
    await expect(iterator.next()).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('refuses to start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const generator = new ExtractiveAnswerGenerator();
    await expect(
      collect(generator.generate(request('What is Fastify?', [], controller.signal))),
    ).rejects.toBeInstanceOf(KbqaError);
  });

  describe('by question type', () => {
    const page = (n: number, title: string, link: string, content: string): AnswerSource => ({
      n,
      title,
      content,
      score: 0.5,
      link: `https://docs.example/${link}`,
    });
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
      const text = await answer('What is a plugin?', [guide, plugins]);
      expect(text).toMatch(/^Acme can be extended with plugins/);
    });

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

    it("puts an option's name in front of its description when only the heading names it", async () => {
      const content = [
        '### `echoHeadRoutes`',
        '',
        '+ Default: `true`',
        '',
        'Automatically creates a sibling HEAD route for each GET route defined.',
        '',
        '### Usage',
        '',
        'Creates sibling HEAD routes only when the router is asked to.',
      ].join('\n');
      const text = await answer('Which option creates sibling HEAD routes for GET routes automatically?', [
        page(1, 'Server', 'server', content),
      ]);
      expect(text).toContain(
        '`echoHeadRoutes`: Automatically creates a sibling HEAD route for each GET route defined [1].',
      );
      // A plain word heading is a title, not a name.
      expect(text).not.toContain('`Usage`');
    });

    it("puts the name in front of a sentence quoted from further down an option's section", async () => {
      const content = [
        '### `loadTimeout`',
        '',
        '+ Default: `10000`',
        '',
        'The maximum amount of time in milliseconds in which a module can load.',
        '',
        'If not, `ready` fails with a `LOAD_TIMEOUT` error and startup stops.',
      ].join('\n');
      const text = await answer('My server never finishes startup and fails with a LOAD_TIMEOUT error', [
        page(1, 'Server', 'server', content),
      ]);
      expect(text).toMatch(/^`loadTimeout`: /);
    });

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

    it('adds the definition of the name a problem report is about, whose condition explains it', async () => {
      const content = [
        '## Request',
        '',
        '- `peer` - The address of the client, read from the socket.',
        '- `peers` - A list of addresses from the Via header (only when `proxyMode` is on).',
        '',
        '> Note: `request.peer`, `request.peers` and `request.route` come from request metadata and are read-only.',
      ].join('\n');
      const text = await answer('request.peers is always undefined in my handler', [
        page(1, 'Request', 'request', content),
      ]);
      expect(text).toContain('(only when `proxyMode` is on)');
    });

    it('opens an answer to "how long …?" with the sentence that states the amount', async () => {
      const content = [
        '## Support',
        '',
        'The release notes of every Tidepool release are published on the release page of the project.',
        'A major release is supported for a minimum period of six months after it is published.',
        'Security fixes of a release are reviewed by the maintainers.',
      ].join('\n');
      const text = await answer('How long is a Tidepool major release supported after it is published?', [
        page(1, 'Support', 'support', content),
      ]);
      expect(text).toMatch(/^A major release is supported for a minimum period of six months/);
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

    it('keeps the names of the entries listed after a chosen sentence that ends in a colon', async () => {
      const content = [
        '## Session',
        '',
        'The first argument of every handler is `Session`.',
        '',
        'Session is a core object holding the following fields:',
        '',
        '- `user` - The signed-in user, when there is one.',
        '- `cart` - The items chosen so far. Items are kept for a day.',
        '- `locale` - The language the pages are shown in.',
        '- `expires` - When the session ends.',
      ].join('\n');
      const text = await answer('What is the Session object?', [page(1, 'Session', 'session', content)]);
      expect(text).toContain(
        'Session is a core object holding the following fields: `user`, `cart`, `locale`, `expires` [1].',
      );
    });

    it('answers "not covered" and lists the closest pages when the best passage covers little of the question', async () => {
      // Every word of the question is somewhere in the sources, but no one passage has much of it.
      const text = await answer('How do I rotate encryption keys?', [
        page(1, 'Security', 'security', 'Encryption is handled by the platform.'),
        page(2, 'Vault', 'vault', 'Keys are stored in the vault.'),
        page(3, 'Logs', 'logs', 'Log files rotate daily.'),
        page(4, 'Logs', 'logs', 'Old log files are deleted.'),
      ]);
      expect(text).toBe(
        `${NOT_COVERED_ANSWER}\n\n${SEE_ALSO} [Security](https://docs.example/security), ` +
          '[Vault](https://docs.example/vault), [Logs](https://docs.example/logs).',
      );
    });
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
      const text = await answer('Does HTTP/2 work without HTTPS?', [
        source(1, 'Browsers', 'Browsers only speak HTTP/2 over HTTPS, with a trusted certificate.'),
        source(2, 'HTTP2', 'Acme supports HTTP/2 over HTTPS (h2) or plaintext (h2c).'),
      ]);
      expect(text.startsWith('Acme supports HTTP/2 over HTTPS (h2) or plaintext (h2c)')).toBe(true);
    });
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
      const text = await answer('What closes idle keep-alive connections?', [source(1, 'Server', shutdown)]);
      expect(text.startsWith('Connection draining follows the `forceCloseConnections` option')).toBe(true);
      expect(text).toContain('idle keep-alive connections are closed at once');
    });
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

  describe('a sentence under a prose heading about one API', () => {
    const migration = (heading: string): AnswerSource =>
      source(
        1,
        'Migration',
        [heading, '', 'Tidepool now supports the HTTP trailer response headers.'].join('\n'),
      );

    it('is labelled with the API the heading names', async () => {
      const text = await answer('How do I add HTTP trailers to a response?', [
        migration('### Add `reply.trailers` methods'),
      ]);
      expect(text.startsWith('`reply.trailers`: Tidepool now supports')).toBe(true);
    });

    it('is left unlabelled when the heading names two APIs', async () => {
      const text = await answer('How do I add HTTP trailers to a response?', [
        migration('### Add `reply.trailers` and `reply.hasTrailer` methods'),
      ]);
      expect(text.startsWith('Tidepool now supports')).toBe(true);
    });
  });

  describe('a question that names an option or method outside a definition', () => {
    it('opens with the first sentence under the heading that is the name', async () => {
      const server = [
        '## Limits',
        '',
        'Requests larger than `bodyLimit` are rejected with a 413 before the handler runs.',
        '',
        '### `bodyLimit`',
        '',
        'Defines the maximum payload, in bytes, that the server accepts.',
      ].join('\n');
      const text = await answer('Can `bodyLimit` be raised for large uploads?', [
        source(1, 'Server', server),
      ]);
      expect(text.startsWith('`bodyLimit`: Defines the maximum payload, in bytes')).toBe(true);
    });

    it('opens with the list entry naming the last part of a dotted name', async () => {
      const request = [
        'Request is the first parameter of the handler. It holds:',
        '',
        '- `ip` - The IP address of the incoming request.',
        '- `ips` - An array of the IP addresses in the `X-Forwarded-For` header.',
        '',
        'Behind a proxy, `request.ip` shows the address of the proxy unless `trustProxy` is set.',
      ].join('\n');
      const text = await answer('Can `request.ip` show the address of a proxy?', [
        source(1, 'Request', request),
      ]);
      expect(text.startsWith('`ip` - The IP address of the incoming request')).toBe(true);
    });

    it('leaves troubleshooting answers opening with the cause', async () => {
      const request = [
        '- `ip` - The IP address of the incoming request.',
        '',
        'Behind a proxy, `request.ip` shows the address of the proxy unless `trustProxy` is set.',
      ].join('\n');
      const text = await answer('Why does `request.ip` show the address of the proxy?', [
        source(1, 'Request', request),
      ]);
      expect(text.startsWith('Behind a proxy')).toBe(true);
    });
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

  describe(isDefining.name, () => {
    it('rejects a subject that names the topic only as an example of something else', () => {
      const topic = new Set(['blaster']);
      expect(isDefining('Tools such as k6 or blaster can be used for load tests.', topic)).toBe(false);
      expect(isDefining('Blaster can be used for load tests.', topic)).toBe(true);
    });

    it('accepts "X is / X are / X lets you / X provides" and rejects sentences where X is not the subject', () => {
      const topic = new Set(['widget']);
      expect(isDefining('A widget is a class that renders a part of a page.', topic)).toBe(true);
      expect(isDefining('Widgets are reusable parts of a page.', topic)).toBe(true);
      expect(isDefining('The widget API lets you render parts of a page.', topic)).toBe(true);
      expect(isDefining('There is no difference between microservices widgets and widgets.', topic)).toBe(
        false,
      );
      expect(isDefining('When a widget is registered, it renders.', topic)).toBe(false);
    });

    it('accepts a predicate that names the topic alone and a glossary entry for it', () => {
      const topic = new Set(['widget']);
      expect(isDefining('The second parameter of the render function is `Widget`.', topic)).toBe(true);
      expect(isDefining('Widget: Details the object passed to each render call.', topic)).toBe(true);
      expect(isDefining('`widget` - The part of the page being rendered.', topic, ['widget'])).toBe(true);
      expect(isDefining('The default is a widget with no border.', topic)).toBe(false);
      expect(isDefining('Gadget: Details the object passed to each widget.', topic)).toBe(false);
    });
  });

  describe('scoredUnits', () => {
    const content = [
      '## `bodyLimit`',
      '',
      'Defines the maximum payload, in bytes, the server is allowed to accept.',
      '',
      '```js',
      'const app = tidepool({ bodyLimit: 1048576 })',
      '```',
      '',
      '## Logging',
      '',
      'Logging is off by default.',
    ].join('\n');

    it('lists every unit of the sources in order, with the score the rules pick from', () => {
      const units = new ExtractiveAnswerGenerator().scoredUnits('What does bodyLimit limit?', [
        source(3, 'Server', content, 0.6),
      ]);
      expect(units.map((u) => [u.kind, u.heading, u.sourceIndex])).toEqual([
        ['sentence', '`bodyLimit`', 0],
        ['code', '`bodyLimit`', 0],
        ['sentence', 'Logging', 0],
      ]);
      const [limit, code, logging] = units;
      expect(limit?.namesAskedId).toBe(false);
      expect(code?.namesAskedId).toBe(true);
      expect(limit?.headingOverlap).toBeGreaterThan(0);
      expect(logging?.headingOverlap).toBe(0);
      expect(logging?.bodyMatched).toBe(false);
      expect(limit?.score).toBeGreaterThan(logging?.score ?? Infinity);
      expect(units.every((u) => u.sourceScore === 0.6)).toBe(true);
    });

    it('is empty when nothing in the sources matches the question', () => {
      expect(
        new ExtractiveAnswerGenerator().scoredUnits('pizza dough recipe', [source(1, 'Server', content)]),
      ).toEqual([]);
    });
  });

  describe('summarize', () => {
    it('stays within maxChars and keeps sentences in document order', async () => {
      const text = readDoc('guides/getting-started.md');
      const summary = await new ExtractiveAnswerGenerator().summarize(
        text,
        400,
        new AbortController().signal,
      );
      expect(summary.length).toBeGreaterThan(50);
      expect(summary.length).toBeLessThanOrEqual(400);
      expect(summary).not.toContain('```');
    });

    it('cuts the best sentence when no sentence fits', async () => {
      const summary = await new ExtractiveAnswerGenerator().summarize(
        'Fastify is a web framework highly focused on providing the best developer experience.',
        30,
        new AbortController().signal,
      );
      expect(summary.length).toBeLessThanOrEqual(30);
      expect(summary.endsWith('…')).toBe(true);
    });
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
      const text = new ExtractiveAnswerGenerator()
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

  describe('condenseQuestion', () => {
    const signal = new AbortController().signal;
    const history = [{ prompt: 'How do I use fastify.register with plugins?', response: 'Call it [1].' }];

    it('prepends key terms of the last prompt to a short follow-up', async () => {
      const condensed = await new ExtractiveAnswerGenerator().condenseQuestion(
        'what about its options?',
        history,
        signal,
      );
      expect(condensed).toBe('fastify.register plugins: what about its options?');
    });

    it('keeps a standalone question and any question without history as they are', async () => {
      const generator = new ExtractiveAnswerGenerator();
      const standalone = 'How do I add a hook that runs before every request handler?';
      expect(await generator.condenseQuestion(standalone, history, signal)).toBe(standalone);
      expect(await generator.condenseQuestion('and in v5?', [], signal)).toBe('and in v5?');
      expect(await generator.condenseQuestion('and in v5?', history, signal)).toBe(
        'fastify.register plugins: and in v5?',
      );
    });
  });
});

describe(cite.name, () => {
  it('puts the marker before the final punctuation, ends a bare sentence and turns a dangling colon into a full stop', () => {
    expect(cite('Sets the status code.', 1)).toBe('Sets the status code [1].');
    expect(cite('Call `reply.send()`', 2)).toBe('Call `reply.send()` [2].');
    expect(cite('Like so:', 3)).toBe('Like so [3].');
    expect(cite('Like so:', 3, true)).toBe('Like so [3]:');
  });
});
