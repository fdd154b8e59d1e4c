import {
  DEFAULT_CHUNKER_OPTIONS,
  KbqaError,
  sha256Hex,
  type ChunkDraft,
  type LoadedDocument,
} from '@kbqa/core';
import { embeddingText } from './embedding-text';
import { MarkdownChunker } from './markdown.chunker';
import { fencesBalanced } from '../test/fences';

const doc = (content: string, extra: Partial<LoadedDocument> = {}): LoadedDocument => ({
  source: 'https://docs.example.com/page',
  content,
  ...extra,
});

/** `n` distinct sentences of about 60 characters each. */
function sentences(n: number, word = 'alpha'): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`Sentence number ${i} talks about ${word} and its many properties.`);
  return out.join(' ');
}

function codeBlock(lines: number, fence = '```'): string {
  const body: string[] = [];
  for (let i = 0; i < lines; i++) body.push(`const value${i} = compute(${i}); # not a heading ${i}`);
  return `${fence}js\n${body.join('\n')}\n${fence}`;
}

function expectWellFormed(chunks: ChunkDraft[], maxSize: number): void {
  chunks.forEach((c, i) => {
    expect(c.ordinal).toBe(i);
    expect(c.content).toBe(c.content.trim());
    expect(c.content.length).toBeGreaterThan(0);
    expect(c.content.length).toBeLessThanOrEqual(maxSize);
    expect(fencesBalanced(c.content)).toBe(true);
  });
}

describe(MarkdownChunker.name, () => {
  const small = new MarkdownChunker({ targetSize: 400, maxSize: 800, overlap: 80 });

  describe('options', () => {
    it('defaults to the core options', () => {
      expect(new MarkdownChunker().options).toEqual(DEFAULT_CHUNKER_OPTIONS);
      expect(new MarkdownChunker({ overlap: 0 }).options).toEqual({ ...DEFAULT_CHUNKER_OPTIONS, overlap: 0 });
    });

    it('ignores options given as undefined', () => {
      expect(new MarkdownChunker({ targetSize: undefined }).options).toEqual(DEFAULT_CHUNKER_OPTIONS);
    });

    it.each([
      [{ overlap: 1000 }, /overlap \(1000\) must be below targetSize/],
      [{ targetSize: 3000 }, /targetSize \(3000\) must not exceed maxSize/],
      [{ overlap: -1 }, /must not be negative/],
      [{ targetSize: 0, overlap: 0 }, /targetSize must be positive/],
      [{ maxSize: 1.5 }, /maxSize must be an integer/],
      [{ targetSize: Number.NaN }, /targetSize must be an integer/],
    ])('refuses %j', (options, message) => {
      expect(() => new MarkdownChunker(options)).toThrow(message);
      expect(() => new MarkdownChunker(options)).toThrow(KbqaError);
    });

    it('reports invalid options as BAD_REQUEST', () => {
      try {
        new MarkdownChunker({ overlap: 2000 });
        throw new Error('expected a KbqaError');
      } catch (e) {
        expect((e as KbqaError).code).toBe('BAD_REQUEST');
      }
    });
  });

  describe('basics', () => {
    it('gives no chunks for an empty or whitespace-only document', () => {
      expect(small.chunk(doc(''))).toEqual([]);
      expect(small.chunk(doc('  \n\n\t \r\n'))).toEqual([]);
      expect(small.chunk(doc('', { summarize: {} }))).toEqual([]);
    });

    it('numbers chunks from 0 and trims their content', () => {
      const chunks = small.chunk(doc(`\n\n  ${sentences(30)}  \n\n## Next\n\n${sentences(10)}\n\n`));
      expect(chunks.length).toBeGreaterThan(2);
      expectWellFormed(chunks, 800);
      expect(chunks.every((c) => c.kind === 'content')).toBe(true);
    });

    it('takes the title from the document, else its first H1, else its source', () => {
      expect(small.chunk(doc('# Heading\n\ntext', { title: 'Given' }))[0]?.title).toBe('Given');
      expect(small.chunk(doc('## Intro\n\ntext\n\n# The Title\n\nmore'))[0]?.title).toBe('The Title');
      expect(small.chunk(doc('The Title\n=========\n\ntext'))[0]?.title).toBe('The Title');
      expect(small.chunk(doc('just text'))[0]?.title).toBe('https://docs.example.com/page');
    });

    it('links chunks to the document link, else its source', () => {
      expect(small.chunk(doc('text', { link: 'https://x.test/a' }))[0]?.link).toBe('https://x.test/a');
      expect(small.chunk(doc('text'))[0]?.link).toBe('https://docs.example.com/page');
    });

    it('drops front matter at the top', () => {
      const chunks = small.chunk(doc('---\ntitle: Hidden\ntags: [a]\n---\n# Visible\n\nBody text.'));
      expect(chunks.map((c) => c.content).join('\n')).not.toContain('Hidden');
      expect(chunks[0]?.content).toBe('# Visible\n\nBody text.');
      expect(chunks[0]?.title).toBe('Visible');
    });

    it('keeps a leading rule that is not front matter out of the chunks but keeps the text', () => {
      const chunks = small.chunk(doc('---\n\nNo front matter here.'));
      expect(chunks.map((c) => c.content)).toEqual(['No front matter here.']);
      const ruled = small.chunk(doc('---\n\n# Title\n\nText.\n\n---\n\nMore.'));
      expect(ruled.map((c) => c.content)).toEqual(['# Title\n\nText.\n\nMore.']);
    });
  });

  describe('callouts', () => {
    it('chunks the text of callouts without their markup', () => {
      const content = [
        '# Pools',
        ':::warning Shared pools',
        'Close the pool before the process exits.',
        ':::',
        '!!! note',
        '    Idle clients are released after a minute.',
        '> [!TIP]',
        '> Size the pool to the number of cores.',
        '',
        '> info **Hint** Pools are per process.',
      ].join('\n');
      const chunks = small.chunk(doc(content, { summarize: {} }));
      expect(chunks[0]?.content).toBe(
        [
          '# Pools',
          'Shared pools',
          'Close the pool before the process exits.',
          'Idle clients are released after a minute.',
          '> Size the pool to the number of cores.',
          '> Pools are per process.',
        ].join('\n\n'),
      );
      expect(chunks.at(-1)?.kind).toBe('summary');
      expect(chunks.at(-1)?.content).not.toMatch(/:::|!!!|\[!|\*\*Hint/);
    });
  });

  describe('headings', () => {
    it('records nested heading paths without the # marks', () => {
      const text = [
        '# Guide',
        sentences(2),
        '## Install ##',
        sentences(5),
        '### From npm',
        sentences(5),
        '## Usage',
        sentences(5),
      ].join('\n\n');
      const chunker = new MarkdownChunker({ targetSize: 200, maxSize: 400, overlap: 0 });
      const paths = chunker.chunk(doc(text)).map((c) => c.headingPath.join(' > '));
      expect(paths).toContain('Guide > Install');
      expect(paths).toContain('Guide > Install > From npm');
      expect(paths).toContain('Guide > Usage');
      expect(paths).not.toContain('Guide > Install > Usage');
    });

    it('handles skipped levels and going back up', () => {
      const text = [
        '# A',
        sentences(4),
        '### C',
        sentences(4),
        '## B',
        sentences(4),
        '# Z',
        sentences(4),
      ].join('\n\n');
      const chunker = new MarkdownChunker({ targetSize: 200, maxSize: 400, overlap: 0 });
      const paths = chunker.chunk(doc(text)).map((c) => c.headingPath);
      expect(paths).toContainEqual(['A', 'C']);
      expect(paths).toContainEqual(['A', 'B']);
      expect(paths).toContainEqual(['Z']);
    });

    it('understands setext headings', () => {
      const text = `Main Title\n==========\n\n${sentences(4)}\n\nSub Part\n--------\n\n${sentences(4)}`;
      const chunker = new MarkdownChunker({ targetSize: 200, maxSize: 400, overlap: 0 });
      const chunks = chunker.chunk(doc(text));
      expect(chunks[0]?.headingPath).toEqual(['Main Title']);
      expect(chunks.map((c) => c.headingPath)).toContainEqual(['Main Title', 'Sub Part']);
    });

    it('starts a new chunk at a heading and keeps the heading line in it', () => {
      const text = `## One\n\n${sentences(3)}\n\n## Two\n\n${sentences(3)}`;
      const chunks = small.chunk(doc(text));
      expect(chunks.map((c) => c.headingPath)).toEqual([['One'], ['Two']]);
      expect(chunks[1]?.content.startsWith('## Two\n\n')).toBe(true);
    });

    it('carries a heading with no text of its own into the chunk of its first subsection', () => {
      const chunks = small.chunk(doc(`## Parent\n\n### Child\n\n${sentences(3)}`));
      expect(chunks).toHaveLength(1);
      expect(chunks[0]?.headingPath).toEqual(['Parent', 'Child']);
      expect(chunks[0]?.content.startsWith('## Parent\n\n### Child\n\n')).toBe(true);
    });

    it('merges a tiny section into the following one and keeps the path of the first', () => {
      const chunks = small.chunk(doc(`## Small\n\nTiny.\n\n## Large\n\n${sentences(3)}`));
      expect(chunks).toHaveLength(1);
      expect(chunks[0]?.headingPath).toEqual(['Small']);
      expect(chunks[0]?.content).toContain('## Large');
    });

    it('gives a preamble merged with the first section the path of that section', () => {
      const text = `<h1 align="center">Banner</h1>\n\n## Middleware\n\n${sentences(2)}`;
      const chunks = small.chunk(doc(text));
      expect(chunks).toHaveLength(1);
      expect(chunks[0]?.headingPath).toEqual(['Middleware']);
      expect(chunks[0]?.content.startsWith('<h1 align="center">Banner</h1>')).toBe(true);
    });

    it('does not merge a tiny section into a section higher up', () => {
      const chunks = small.chunk(doc(`# Top\n\n## Small\n\nTiny.\n\n# Other\n\n${sentences(2)}`));
      expect(chunks.map((c) => c.headingPath)).toEqual([['Top', 'Small'], ['Other']]);
    });

    it('keeps a trailing heading with no text', () => {
      const chunks = small.chunk(doc(`## One\n\n${sentences(3)}\n\n## See also`));
      expect(chunks.map((c) => c.content).join('\n')).toContain('## See also');
    });

    it('treats an absurdly long heading as text so it cannot overflow a chunk', () => {
      const chunks = small.chunk(doc(`# ${'word '.repeat(400)}\n\nBody.`));
      expectWellFormed(chunks, 800);
      expect(chunks.every((c) => c.headingPath.length === 0)).toBe(true);
    });
  });

  describe('code blocks', () => {
    it('keeps a code block that fits in maxSize whole', () => {
      const code = codeBlock(12); // about 650 characters: over targetSize, under maxSize
      expect(code.length).toBeGreaterThan(400);
      const chunks = small.chunk(doc(`${sentences(5)}\n\n${code}\n\n${sentences(5)}`));
      expect(chunks.filter((c) => c.content.includes(code))).toHaveLength(1);
      expectWellFormed(chunks, 800);
    });

    it('does not take # lines inside ``` or ~~~ fences for headings', () => {
      const text = `# Real\n\n${codeBlock(3)}\n\n${codeBlock(3, '~~~')}\n\n\`\`\`\n# comment\n## another\n\`\`\``;
      const chunks = small.chunk(doc(text));
      expect(chunks.every((c) => c.headingPath.join() === 'Real')).toBe(true);
      expect(chunks.map((c) => c.content).join('\n')).toContain('# comment\n## another');
    });

    it('splits an oversized code block at lines and keeps the fence on every piece', () => {
      const code = codeBlock(60);
      const chunks = small.chunk(doc(`## Code\n\n${code}`));
      expect(chunks.length).toBeGreaterThan(2);
      expectWellFormed(chunks, 800);
      for (const c of chunks) {
        expect(c.content).toMatch(/```js\n/);
        expect(c.content.endsWith('```')).toBe(true);
      }
      const lines = chunks.flatMap((c) => c.content.split('\n')).filter((l) => l.startsWith('const'));
      expect(lines).toHaveLength(60);
    });

    it('closes a fence the document never closed', () => {
      const chunks = small.chunk(doc('Intro.\n\n```sh\nnpm install\n# still code'));
      expect(chunks).toHaveLength(1);
      expect(chunks[0]?.content).toBe('Intro.\n\n```sh\nnpm install\n# still code\n```');
      expect(chunks[0]?.headingPath).toEqual([]);
    });

    it('keeps a longer fence open across shorter fence lines', () => {
      const text = '````md\n```js\nx\n```\n# inside\n````\n\nAfter.';
      const chunks = small.chunk(doc(text));
      expect(chunks[0]?.headingPath).toEqual([]);
      expect(chunks[0]?.content).toContain('````md\n```js\nx\n```\n# inside\n````');
    });
  });

  describe('sizes and overlap', () => {
    it('never makes a chunk larger than maxSize', () => {
      const parts: string[] = [];
      for (let i = 0; i < 40; i++) {
        parts.push(`${'#'.repeat((i % 4) + 1)} Section ${i}`, sentences(i % 7), codeBlock(i % 20));
        if (i % 5 === 0) parts.push(sentences(30));
        if (i % 6 === 0)
          parts.push(Array.from({ length: i }, (_, k) => `- item ${k} ${sentences(1)}`).join('\n'));
      }
      const chunks = small.chunk(doc(parts.join('\n\n')));
      expectWellFormed(chunks, 800);
    });

    it('splits an over-long paragraph at sentence boundaries', () => {
      const chunks = small.chunk(doc(sentences(40)));
      expect(chunks.length).toBeGreaterThan(4);
      expectWellFormed(chunks, 800);
      for (const c of chunks) expect(c.content.endsWith('properties.')).toBe(true);
    });

    it('repeats the end of the previous chunk within a section', () => {
      const chunks = small.chunk(doc(`## Long\n\n${sentences(40)}`));
      for (let i = 1; i < chunks.length; i++) {
        const prev = chunks[i - 1]?.content ?? '';
        const first = (chunks[i]?.content ?? '').split('\n\n')[0] ?? '';
        expect(first.length).toBeGreaterThan(0);
        expect(first.length).toBeLessThanOrEqual(80);
        expect(prev.endsWith(first)).toBe(true);
      }
    });

    it('does not overlap across sections', () => {
      const a = sentences(6, 'alpha');
      const b = sentences(6, 'beta');
      const chunks = small.chunk(doc(`## A\n\n${a}\n\n## B\n\n${b}`));
      const firstOfB = chunks.find((c) => c.headingPath.join() === 'B');
      expect(firstOfB?.content.startsWith('## B')).toBe(true);
      expect(firstOfB?.content).not.toContain('alpha');
    });

    it('does not overlap out of a code block', () => {
      const chunks = small.chunk(doc(`${codeBlock(10)}\n\n${sentences(6)}`));
      expect(chunks).toHaveLength(2);
      expect(chunks[1]?.content.startsWith('Sentence number 0')).toBe(true);
    });

    it('makes no overlap when overlap is 0', () => {
      const chunker = new MarkdownChunker({ targetSize: 400, maxSize: 800, overlap: 0 });
      const chunks = chunker.chunk(doc(sentences(20)));
      const total = chunks.reduce((n, c) => n + c.content.length + 1, -1);
      expect(total).toBe(sentences(20).length);
    });
  });

  describe('lists and tables', () => {
    const list = (n: number, prefix = '-'): string =>
      Array.from(
        { length: n },
        (_, i) => `${prefix} item ${i} is about something\n  with a continuation line`,
      ).join('\n');

    it('keeps a list that fits in maxSize whole', () => {
      const l = list(12); // about 600 characters
      const chunks = small.chunk(doc(`${sentences(3)}\n\n${l}\n\n${sentences(3)}`));
      expect(chunks.filter((c) => c.content.includes(l))).toHaveLength(1);
    });

    it('keeps a short lead-in with the list it introduces, up to maxSize', () => {
      const l = list(12);
      const chunks = small.chunk(doc(`## Options\n\nThese options exist:\n\n${l}`));
      expect(chunks).toHaveLength(1);
      expect(chunks[0]?.content).toBe(`## Options\n\nThese options exist:\n\n${l}`);
    });

    it('splits a larger list at item boundaries', () => {
      const chunks = small.chunk(doc(`## List\n\n${list(40, '1.')}`));
      expect(chunks.length).toBeGreaterThan(2);
      expectWellFormed(chunks, 800);
      for (const c of chunks) {
        const body = c.content.replace(/^## List\n\n/, '');
        expect(body).toMatch(/^1\. item \d+/);
        expect(body.endsWith('with a continuation line')).toBe(true);
      }
    });

    it('keeps code blocks inside list items with their item', () => {
      const item = (i: number): string =>
        `- step ${i}\n\n  \`\`\`sh\n  # run step ${i}\n  make step-${i}\n  \`\`\``;
      const text = `## Steps\n\n${Array.from({ length: 30 }, (_, i) => item(i)).join('\n')}\n\n## After\n\nDone.`;
      const chunks = small.chunk(doc(text));
      expectWellFormed(chunks, 800);
      expect(chunks.flatMap((c) => c.headingPath)).not.toContain('run step 1');
      for (let i = 0; i < 30; i++) {
        expect(
          chunks.some((c) => c.content.includes(`\`\`\`sh\n  # run step ${i}\n  make step-${i}\n  \`\`\``)),
        ).toBe(true);
      }
    });

    it('keeps a table whole', () => {
      const rows = Array.from({ length: 5 }, (_, i) => `| opt${i} | value ${i} |`).join('\n');
      const table = `| Option | Value |\n| --- | :---: |\n${rows}`;
      const chunks = small.chunk(doc(`Options:\n${table}\n\nAfter the table.`));
      expect(chunks.filter((c) => c.content.includes(table))).toHaveLength(1);
    });

    it('splits a large table at rows and repeats its header', () => {
      const rows = Array.from(
        { length: 60 },
        (_, i) => `| option-${i} | a description of option ${i} |`,
      ).join('\n');
      const chunks = small.chunk(doc(`| Option | Description |\n|---|---|\n${rows}`));
      expect(chunks.length).toBeGreaterThan(2);
      expectWellFormed(chunks, 800);
      for (const c of chunks)
        expect(c.content.startsWith('| Option | Description |\n|---|---|\n| option-')).toBe(true);
    });
  });

  describe('large and hostile input', () => {
    it('chunks a 3 MB document into bounded chunks', () => {
      const section = `## Part\n\n${sentences(20)}\n\n${codeBlock(15)}\n\n- a\n- b\n\n> quoted ${sentences(2)}\n\n`;
      const text = section.repeat(Math.ceil(3_000_000 / section.length));
      const chunks = new MarkdownChunker().chunk(doc(text));
      expect(chunks.length).toBeGreaterThan(1500);
      expectWellFormed(chunks, DEFAULT_CHUNKER_OPTIONS.maxSize);
    });

    it('chunks a 1 MB single line', () => {
      const line = 'x'.repeat(1_000_000);
      const chunks = new MarkdownChunker().chunk(doc(line, { summarize: {} }));
      expectWellFormed(chunks, DEFAULT_CHUNKER_OPTIONS.maxSize);
      const content = chunks.filter((c) => c.kind === 'content');
      expect(content.reduce((n, c) => n + c.content.length, 0)).toBe(1_000_000);
    });

    it('chunks a 1 MB line of words and a 1 MB line of markdown punctuation', () => {
      for (const line of [
        'word '.repeat(200_000),
        '[('.repeat(500_000),
        '#'.repeat(1_000_000),
        '`'.repeat(1_000_000),
      ]) {
        const chunks = new MarkdownChunker().chunk(doc(line, { summarize: {} }));
        expect(chunks.length).toBeGreaterThan(400);
        // Pieces of a run of backticks look like fences wherever the cut falls: sizes only.
        for (const c of chunks) expect(c.content.length).toBeLessThanOrEqual(DEFAULT_CHUNKER_OPTIONS.maxSize);
      }
    });
  });

  describe('parts', () => {
    it('packs parts in order and links each chunk to its first part', () => {
      const parts = Array.from({ length: 30 }, (_, i) => ({
        text: `Part ${i} of the transcript says something.`,
        link: `https://video.test/v?t=${i * 10}`,
      }));
      const chunks = small.chunk(doc('ignored content', { parts, title: 'Video' }));
      expect(chunks.length).toBeGreaterThan(1);
      expectWellFormed(chunks, 800);
      expect(chunks.map((c) => c.content).join('\n\n')).toBe(parts.map((p) => p.text).join('\n\n'));
      for (const c of chunks) {
        const first = /^Part (\d+)/.exec(c.content)?.[1];
        expect(c.link).toBe(`https://video.test/v?t=${Number(first) * 10}`);
        expect(c.headingPath).toEqual([]);
        expect(c.title).toBe('Video');
      }
    });

    it('splits an oversized part and keeps its link on every piece', () => {
      const chunks = small.chunk(doc('', { parts: [{ text: sentences(40), link: 'https://v.test/1' }] }));
      expect(chunks.length).toBeGreaterThan(2);
      expectWellFormed(chunks, 800);
      expect(chunks.every((c) => c.link === 'https://v.test/1')).toBe(true);
    });

    it('falls back to content when parts is empty and skips blank parts', () => {
      expect(small.chunk(doc('from content', { parts: [] })).map((c) => c.content)).toEqual(['from content']);
      expect(small.chunk(doc('x', { parts: [{ text: '  ', link: 'l' }] }))).toEqual([]);
    });
  });

  describe('summary', () => {
    const text = [
      '# Caching',
      'The cache stores responses so that repeated requests for the same page are fast.',
      'Each entry in the cache is keyed by the request URL and the accepted content type. ' +
        'Entries expire after a configurable time to live. Memory use is bounded by a size limit.',
      '```js\nconst cache = new Cache({ cache: true }); // cache cache cache cache cache\n```',
      '## Invalidation',
      'The cache drops an entry when the page it stores changes at the source. ' +
        'Weather reports mention nothing relevant here. Our office plants were watered on Tuesday.',
    ].join('\n\n');

    it('appends a summary chunk within maxChars, sentences in document order', () => {
      const chunks = small.chunk(doc(text, { summarize: { maxChars: 200 } }));
      const summary = chunks[chunks.length - 1];
      expect(summary?.kind).toBe('summary');
      expect(summary?.ordinal).toBe(chunks.length - 1);
      expect(summary?.headingPath).toEqual([]);
      expect(summary?.content.length).toBeLessThanOrEqual(200);
      expect(summary?.content).toContain('The cache stores responses');
      expect(summary?.content).not.toContain('new Cache');
      expect(summary?.content).not.toContain('plants');
      const positions = (summary?.content ?? '').split(/(?<=\.) /).map((s) => text.indexOf(s));
      expect(positions.every((p) => p >= 0)).toBe(true);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      expect(chunks.filter((c) => c.kind === 'summary')).toHaveLength(1);
    });

    it('uses 600 characters by default, capped at maxSize', () => {
      const long = sentences(200);
      const byDefault = new MarkdownChunker().chunk(doc(long, { summarize: {} })).at(-1);
      expect(byDefault?.kind).toBe('summary');
      expect(byDefault?.content.length).toBeLessThanOrEqual(600);
      expect(byDefault?.content.length).toBeGreaterThan(400);
      const capped = small.chunk(doc(long, { summarize: { maxChars: 5000 } })).at(-1);
      expect(capped?.content.length).toBeLessThanOrEqual(800);
    });

    it('refuses a maxChars that is not a positive integer', () => {
      expect(() => small.chunk(doc(text, { summarize: { maxChars: 0 } }))).toThrow(/maxChars/);
    });

    it('summarizes parts too', () => {
      const parts = [{ text: sentences(10), link: 'https://v.test' }];
      const chunks = small.chunk(doc('', { parts, summarize: { maxChars: 100 } }));
      expect(chunks.at(-1)?.kind).toBe('summary');
      expect(chunks.at(-1)?.link).toBe('https://docs.example.com/page');
    });
  });

  describe('contentHash', () => {
    it('is the sha256 of the embedding text', () => {
      for (const c of small.chunk(doc(`# T\n\n## S\n\n${sentences(20)}`, { summarize: {} }))) {
        expect(c.contentHash).toBe(sha256Hex(embeddingText(c)));
        expect(embeddingText(c)).toBe(`${c.title}\n${c.headingPath.join(' > ')}\n${c.content}`);
      }
    });

    it('is stable across runs and changes with content, title or heading path', () => {
      const hashes = (d: LoadedDocument): string[] => small.chunk(d).map((c) => c.contentHash);
      const base = hashes(doc('## S\n\nSame text.'));
      expect(hashes(doc('## S\n\nSame text.'))).toEqual(base);
      expect(
        new MarkdownChunker({ targetSize: 400, maxSize: 800, overlap: 80 }).chunk(
          doc('## S\n\nSame text.'),
        )[0]?.contentHash,
      ).toBe(base[0]);
      expect(hashes(doc('## S\n\nOther text.'))).not.toEqual(base);
      expect(hashes(doc('## S\n\nSame text.', { title: 'New title' }))).not.toEqual(base);
      expect(hashes(doc('## R\n\nSame text.'))).not.toEqual(base);
    });
  });
});
