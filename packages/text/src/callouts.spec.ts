import { calloutTitle, stripCallouts } from './callouts';

const md = (...lines: string[]): string => lines.join('\n');

describe(stripCallouts.name, () => {
  it('drops Docusaurus containers and a title that only names the kind', () => {
    const input = md('Intro line.', '', ':::warning', 'Close the pool before exit.', ':::', '', 'After.');
    expect(stripCallouts(input)).toBe(md('Intro line.', '', 'Close the pool before exit.', '', 'After.'));
    expect(stripCallouts(md(':::note[NOTE]', 'Sizes are in bytes.', ':::'))).toBe('Sizes are in bytes.');
  });

  it('keeps a custom Docusaurus title as its own paragraph, in either title syntax', () => {
    const expected = md('Pooling basics', '', 'Reuse one client per process.');
    expect(stripCallouts(md(':::tip[Pooling basics]', 'Reuse one client per process.', ':::'))).toBe(
      expected,
    );
    expect(stripCallouts(md(':::tip Pooling basics', 'Reuse one client per process.', ':::'))).toBe(expected);
    expect(stripCallouts(md(':::tip{title="Pooling basics"}', 'Reuse one client per process.', ':::'))).toBe(
      expected,
    );
  });

  it('drops VitePress containers, with or without a space before the kind', () => {
    const input = md(
      '::: danger',
      'Never commit the key file.',
      ':::',
      '',
      '::: details Why a queue?',
      'Jobs survive a restart.',
      ':::',
      '',
      '::: tip TIP',
      'Run it twice.',
      ':::',
    );
    expect(stripCallouts(input)).toBe(
      md(
        'Never commit the key file.',
        '',
        'Why a queue?',
        '',
        'Jobs survive a restart.',
        '',
        'Run it twice.',
      ),
    );
  });

  it('breaks the paragraph where a container marker stood, so texts are not glued', () => {
    expect(stripCallouts(md('Before the box.', ':::info', 'Inside the box.', ':::', 'After the box.'))).toBe(
      md('Before the box.', '', 'Inside the box.', '', 'After the box.'),
    );
  });

  it('drops MkDocs admonitions and dedents their body', () => {
    const input = md(
      '!!! note',
      '    Cache entries expire after a day.',
      '',
      '    A second paragraph of the note.',
      '',
      'Back to the page.',
    );
    expect(stripCallouts(input)).toBe(
      md('Cache entries expire after a day.', '', 'A second paragraph of the note.', '', 'Back to the page.'),
    );
  });

  it('keeps a custom MkDocs title, drops a kind-only or empty one, for !!!, ??? and ???+', () => {
    expect(stripCallouts(md('!!! warning "Slow on large tables"', '    Add an index first.'))).toBe(
      md('Slow on large tables', '', 'Add an index first.'),
    );
    expect(stripCallouts(md('??? info "Info"', '    Collapsed by default.'))).toBe('Collapsed by default.');
    expect(stripCallouts(md('???+ tip ""', '    Open by default.'))).toBe('Open by default.');
    expect(stripCallouts(md('!!! danger inline end', '    Beside the text.'))).toBe('Beside the text.');
  });

  it('drops GitBook hints', () => {
    const input = md('{% hint style="info" %}', 'Tokens last one hour.', '{% endhint %}', 'Next paragraph.');
    expect(stripCallouts(input)).toBe(md('Tokens last one hour.', '', 'Next paragraph.'));
  });

  it('drops reST admonition directives, their options, and dedents the body', () => {
    const input = md(
      'Text before.',
      '',
      '.. warning::',
      '   :class: wide',
      '',
      '   Old tokens stop working.',
      '',
      '.. note:: The first words sit on the directive line',
      '   and the sentence goes on here.',
      '',
      '.. admonition:: Migrating from v1',
      '',
      '   Rename the config file.',
      '',
      'Text after.',
    );
    expect(stripCallouts(input)).toBe(
      md(
        'Text before.',
        '',
        'Old tokens stop working.',
        '',
        'The first words sit on the directive line',
        'and the sentence goes on here.',
        '',
        'Migrating from v1',
        '',
        'Rename the config file.',
        '',
        'Text after.',
      ),
    );
  });

  it('drops GitHub alert markers and keeps the quoted body', () => {
    expect(stripCallouts(md('> [!WARNING]', '> The folder is deleted.', '> Make a copy.'))).toBe(
      md('> The folder is deleted.', '> Make a copy.'),
    );
    expect(stripCallouts(md('> [!tip]- Faster builds', '> Cache the store.'))).toBe(
      md('> Faster builds', '>', '> Cache the store.'),
    );
  });

  it('drops the NestJS docs marker and keeps the text after it', () => {
    expect(stripCallouts('> warning **Warning** Do not share the pool between tests.')).toBe(
      '> Do not share the pool between tests.',
    );
    expect(stripCallouts(md('> info **Hint** The guard runs first.', '> Then the pipe.'))).toBe(
      md('> The guard runs first.', '> Then the pipe.'),
    );
    expect(stripCallouts('> info **Good to know** Both run per request.')).toBe(
      md('> Good to know', '>', '> Both run per request.'),
    );
  });

  it('leaves a quote that only starts like a NestJS marker further down alone', () => {
    const input = md('> First line of a quote.', '> note **this** word.');
    expect(stripCallouts(input)).toBe(input);
  });

  it('handles nested containers, with longer outer fences or the same length', () => {
    const longer = md('::::warning', 'Outer text.', '', ':::tip Inner title', 'Inner text.', ':::', '::::');
    expect(stripCallouts(longer)).toBe(md('Outer text.', '', 'Inner title', '', 'Inner text.'));
    const same = md(':::note', 'Outer.', ':::info', 'Inner.', ':::', 'Outer again.', ':::');
    expect(stripCallouts(same)).toBe(md('Outer.', '', 'Inner.', '', 'Outer again.'));
  });

  it('handles an MkDocs admonition nested in another', () => {
    const input = md('!!! note "Outer"', '    Outer text.', '', '    !!! tip', '        Inner text.');
    expect(stripCallouts(input)).toBe(md('Outer', '', 'Outer text.', '', 'Inner text.'));
  });

  it('keeps a callout inside a list item at the item indentation', () => {
    const input = md(
      '1. Install the CLI.',
      '',
      '   :::caution',
      '   Use version 2 or later.',
      '   :::',
      '2. Log in.',
      '',
      '    !!! note "Where the token goes"',
      '        It is written to the home folder.',
    );
    expect(stripCallouts(input)).toBe(
      md(
        '1. Install the CLI.',
        '',
        '   Use version 2 or later.',
        '',
        '2. Log in.',
        '',
        '    Where the token goes',
        '',
        '    It is written to the home folder.',
      ),
    );
  });

  it('keeps code fences inside callouts intact, dedented with their body', () => {
    const input = md(
      '!!! example "Start"',
      '    ```sh',
      '    npm start',
      '      --port 3000',
      '    ```',
      '',
      ':::tip',
      '```js',
      'run();',
      '```',
      ':::',
    );
    expect(stripCallouts(input)).toBe(
      md('Start', '', '```sh', 'npm start', '  --port 3000', '```', '', '```js', 'run();', '```'),
    );
  });

  it('keeps blank lines inside code in an indented body as they are', () => {
    const input = md('!!! note', '    ```py', '    a = 1', '', '', '    b = 2', '    ```');
    expect(stripCallouts(input)).toBe(md('```py', 'a = 1', '', '', 'b = 2', '```'));
  });

  it('treats ::: and other markers inside a code fence as code', () => {
    const input = md(
      'Write a tip like this:',
      '',
      '````md',
      ':::tip My title',
      '```js',
      'x();',
      '```',
      ':::',
      '!!! note',
      '> [!NOTE]',
      '````',
      '',
      ':::',
    );
    expect(stripCallouts(input)).toBe(input);
  });

  it('leaves callouts nested past eight levels as they are, so time stays linear', () => {
    const depth = 300;
    const lines = Array.from({ length: depth }, (_, i) => `${' '.repeat(4 * i)}!!! note`);
    lines.push(`${' '.repeat(4 * depth)}Deep text.`);
    const out = stripCallouts(lines.join('\n')).split('\n');
    expect(out[0]).toBe('!!! note');
    expect(out).toHaveLength(depth - 8 + 1);
    expect(out.at(-1)?.trim()).toBe('Deep text.');
  });

  it('returns markdown without callouts unchanged', () => {
    const input = md('# Title', '', 'Ratio 3:2 and a::b.', '', '> A plain quote.', '', '- a list');
    expect(stripCallouts(input)).toBe(input);
  });
});

describe(calloutTitle.name, () => {
  it('drops titles that only name the kind, in any case, with an icon or a colon', () => {
    for (const title of ['Note', 'WARNING', 'Hint:', 'ℹ️ Info', '**Danger**', 'details', 'Important', ''])
      expect(calloutTitle(title)).toBe('');
  });

  it('keeps custom titles, cleaned', () => {
    expect(calloutTitle('⚠️ Breaking change:')).toBe('Breaking change');
    expect(calloutTitle('  Note on  `retry`  ')).toBe('Note on `retry`');
  });
});
