import { source, answerKnowing } from '../../test/extractive';
import {
  ExtractiveAnswerGenerator,
  MIN_PASSAGE_COVERAGE,
  NOT_COVERED_ANSWER,
  SEE_ALSO,
  namesWhatDocsLack,
} from '../extractive-answer.generator';

describe(ExtractiveAnswerGenerator.name, () => {
  describe('a question about what the documentation never names', () => {
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
  });
});
