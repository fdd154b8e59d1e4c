import { type AnswerSource } from '@kbqa/core';
import { source, page, answer } from '../../test/extractive';
import { ExtractiveAnswerGenerator, cite } from '../extractive-answer.generator';

describe(ExtractiveAnswerGenerator.name, () => {
  describe('labels: the name a section is about in front of its sentence', () => {
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
  });
});

describe(cite.name, () => {
  it('starts a new paragraph after a list, so the next sentence never reads as the last item', async () => {
    const content = [
      '## The `static` folder',
      '',
      'Put a file in the static folder when it is:',
      '',
      '- Never imported by your scripts',
      '- Served under its own unchanged name',
      '',
      'Files in the static folder are copied to the output folder unchanged.',
    ].join('\n');
    const text = await answer('When should a file go in the static folder?', [
      page(1, 'Static files', 'static', content),
    ]);
    expect(text).toContain('- Served under its own unchanged name\n\nFiles in the static folder are copied');
  });

  it('puts the marker before the final punctuation, ends a bare sentence and turns a dangling colon into a full stop', () => {
    expect(cite('Sets the status code.', 1)).toBe('Sets the status code [1].');
    expect(cite('Call `reply.send()`', 2)).toBe('Call `reply.send()` [2].');
    expect(cite('Like so:', 3)).toBe('Like so [3].');
    expect(cite('Like so:', 3, true)).toBe('Like so [3]:');
  });
});
