import { KbqaError, type AnswerSource } from '@kbqa/core';
import { ExtractiveAnswerGenerator } from '../extractive-answer.generator';
import { FEATURE_NAMES, type FeatureName } from './features';
import { PASS_NAMES, type PassName } from './passes';
import { NEUTRAL_FEATURES } from './score';

function page(n: number, title: string, content: string, score = 0.5): AnswerSource {
  return { n, title, content, score, link: `https://docs.example/${n}` };
}

interface Case {
  question: string;
  sources: AnswerSource[];
  context?: string;
}

/** For each pass, a question whose answer the pass changes. */
const PASS_CASES: Record<PassName, Case> = {
  namingLead: {
    question: 'How can I get notified every time a route is mounted?',
    sources: [
      page(
        1,
        'Plugins',
        [
          '## Hooks in plugins',
          '',
          'Hooks added inside a plugin only run for its own routes.',
          '',
          'Another way is to use the onMount hook to adjust routes from inside the plugin. Every time a new route is mounted, you can read and change its settings.',
        ].join('\n'),
      ),
    ],
  },
  ownWordsFirst: {
    question: 'what about 404s?',
    context: 'handle errors thrown routes setErrorHandler',
    sources: [
      page(
        1,
        'Errors',
        [
          '## Error handler',
          'Use `setErrorHandler` to handle errors thrown in routes: the handler gets the error, the request and the reply.',
          'Errors thrown in routes reach the error handler of their plugin.',
        ].join('\n\n'),
        0.9,
      ),
      page(
        2,
        'Missing pages',
        '## Not found\n\nUse `setNotFoundHandler` to answer with a 404 when no route matches.',
        0.3,
      ),
    ],
  },
  antecedents: {
    question: 'Why are my messages odd with other validators?',
    sources: [
      page(
        1,
        'Validation',
        [
          '## Messages from other validators',
          '',
          'Errors from the built-in validator go through the `schemaErrorFormatter` function,',
          'which turns them into readable text. This may give odd messages with other validators.',
        ].join('\n'),
      ),
    ],
  },
  announcedBlocks: {
    question: 'Where does the tide server read its settings?',
    sources: [
      page(
        1,
        'Tide server',
        [
          '## Tide server',
          '',
          'The tide server keeps one connection per client. It reads its settings at boot from the following file:',
          '',
          '```yaml',
          'port: 4000',
          'workers: 2',
          '```',
          '',
          'Restarts are graceful.',
        ].join('\n'),
      ),
    ],
  },
};

/** Questions whose units between them make every feature move some score or answer. */
const FEATURE_CASES: Case[] = [
  ...Object.values(PASS_CASES),
  {
    question: 'What is a widget?',
    sources: [
      page(
        1,
        'Microservices widgets',
        '## Microservices widgets\n\nThere is no fundamental difference between microservices widgets and regular widgets. ' +
          'A widget in a microservice is registered the same way.',
      ),
      {
        ...page(
          2,
          'Widgets',
          '## Widgets\n\nWidgets are used across the whole application. ' +
            'A widget is a class that renders one part of a page and keeps its own state. ' +
            'Each widget can be reused.',
        ),
        link: 'https://docs.example/widgets',
      },
    ],
  },
  {
    question: 'What is a plugin?',
    sources: [
      {
        ...page(
          1,
          'Types',
          '#### Plugin\n\nA plugin can be a set of routes or a helper, typed with `AcmePlugin`.',
        ),
        link: 'https://docs.example/reference/types',
      },
      {
        ...page(
          2,
          'Plugins',
          '## Plugins\n\nAcme can be extended with plugins, which add routes or helpers. Use `register` to add one.',
        ),
        link: 'https://docs.example/reference/plugins',
      },
    ],
  },
  {
    question: 'What is a gadget?',
    sources: [
      page(1, 'Gadget parts', '## Gadgets\n\nA gadget is a small part that renders one value.'),
      page(2, 'Parts', '## Gadgets\n\nA gadget is a small part that renders one list.'),
    ],
  },
  {
    question: 'What does the `loadTimeout` option do?',
    sources: [
      page(
        1,
        'Server',
        [
          '## Timeouts',
          '',
          'Every server has timeouts for loading plugins, and a slow plugin holds up the start.',
          '',
          '### `loadTimeout`',
          '',
          'The time a plugin may take to load, in milliseconds.',
          'A plugin that takes longer stops the start with an error.',
        ].join('\n'),
      ),
    ],
  },
  {
    question: 'What is the default `payloadCap`?',
    sources: [
      page(
        1,
        'Server',
        [
          '### `payloadCap`',
          '',
          '+ Default: `1048576` (1MiB)',
          '',
          'Defines the maximum payload size, in bytes, the server accepts.',
          'Larger request bodies are refused with a payload size error.',
        ].join('\n'),
      ),
    ],
  },
  {
    question: 'How long is a Tidepool major release supported after it is published?',
    sources: [
      page(
        1,
        'Support',
        [
          '## Support',
          '',
          'The release notes of every Tidepool release are published on the release page of the project.',
          'A major release is supported for a minimum period of six months after it is published.',
          'Security fixes of a release are reviewed by the maintainers.',
        ].join('\n'),
      ),
    ],
  },
  {
    question: 'How do I test routes without listening on a port?',
    sources: [
      page(
        1,
        'Testing',
        [
          '## Testing routes',
          '',
          'Use `inject` to test routes: it sends a fake request.',
          'See here for the whole example:',
          'Routes that call `listen` open a port for real, which a test of many routes on one machine should avoid because two tests can ask for the same port at the same time and then one of them fails with an error that says the address is already in use, and a test that waits for a free port before it starts is slower than one that injects its requests into the routes it tests.',
          '',
          'routes](./routes.md) are tested on a port of their own.',
          'Port.',
          'Test `inject`.',
        ].join('\n'),
        0.9,
      ),
      page(2, 'Server', '## Listen\n\nCall `listen` to accept requests on a port.', 0.2),
    ],
  },
];

/** What a generator makes of a case: its units' scores and its answer. */
function outcome(generator: ExtractiveAnswerGenerator, c: Case): string {
  const scores = generator.scoredUnits(c.question, c.sources, c.context).map((u) => u.score);
  return JSON.stringify([scores, generator.compose(c.question, c.sources, c.context)]);
}

describe('ExtractiveAnswerGeneratorOptions.disabled', () => {
  it('names every pass and feature once, none of them twice across the two lists', () => {
    const names = [...PASS_NAMES, ...FEATURE_NAMES];
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(PASS_CASES).sort()).toEqual([...PASS_NAMES].sort());
  });

  it('refuses a name that is neither a pass nor a feature, saying which', () => {
    const create = () => new ExtractiveAnswerGenerator({ disabled: ['antecedents', 'sentenceLength'] });
    expect(create).toThrow(KbqaError);
    expect(create).toThrow(/Unknown pass or feature to disable: sentenceLength\b/);
  });

  it.each(PASS_NAMES.map((name) => [name]))('skips the %s pass when it is disabled', (name) => {
    const c = PASS_CASES[name];
    const answer = (disabled: string[]) =>
      new ExtractiveAnswerGenerator({ disabled, scorer: 'hand' })
        .compose(c.question, c.sources, c.context)
        .join('');
    expect(answer([name])).not.toBe(answer([]));
    // Switching off every other pass leaves this one's effect in place.
    const others = PASS_NAMES.filter((other) => other !== name);
    expect(answer(others)).not.toBe(answer([...others, name]));
  });

  it.each(FEATURE_NAMES.map((name) => [name]))(
    'reads the %s feature as its neutral value when it is disabled',
    (name: FeatureName) => {
      // The hand score: each feature there feeds a factor the cases were written to move.
      const on = new ExtractiveAnswerGenerator({ scorer: 'hand' });
      const off = new ExtractiveAnswerGenerator({ disabled: [name], scorer: 'hand' });
      expect(FEATURE_CASES.some((c) => outcome(off, c) !== outcome(on, c))).toBe(true);
      // The units still report the feature as extracted.
      for (const c of FEATURE_CASES) {
        const features = off.scoredUnits(c.question, c.sources, c.context).map((u) => u.features);
        expect(features).toEqual(on.scoredUnits(c.question, c.sources, c.context).map((u) => u.features));
      }
      expect(NEUTRAL_FEATURES[name]).toBeDefined();
    },
  );
});
