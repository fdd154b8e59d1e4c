import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_CHUNKER_OPTIONS } from '@kbqa/core';
import { DOCS_CORPUS_DIR } from '@kbqa/core/testing';
import { fencedBlocks, fencesBalanced } from '../test/fences';
import { MarkdownChunker } from './markdown.chunker';

const corpus = DOCS_CORPUS_DIR;

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return markdownFiles(p);
    return e.name.endsWith('.md') ? [p] : [];
  });
}

describe(`${MarkdownChunker.name} on the docs corpus of the fixtures`, () => {
  const files = markdownFiles(corpus);
  const chunker = new MarkdownChunker();
  const { maxSize } = DEFAULT_CHUNKER_OPTIONS;

  it('finds the corpus, with a code block longer than maxSize to split', () => {
    expect(files.length).toBeGreaterThanOrEqual(15);
    const longest = Math.max(
      ...files.flatMap((f) => fencedBlocks(fs.readFileSync(f, 'utf8')).map((b) => b.length)),
    );
    expect(longest).toBeGreaterThan(maxSize);
  });

  it.each(files.map((f) => [path.relative(corpus, f), f]))(
    '%s: chunks within maxSize, fences intact',
    (_name, file) => {
      const content = fs.readFileSync(file, 'utf8');
      const chunks = chunker.chunk({ source: file, content, summarize: {} });
      expect(chunks.length).toBeGreaterThan(0);
      for (const c of chunks) {
        expect(c.content.length).toBeLessThanOrEqual(maxSize);
        expect(fencesBalanced(c.content)).toBe(true);
      }
      for (const block of fencedBlocks(content)) {
        if (block.length > maxSize) continue;
        const code = block.trimStart();
        expect(chunks.some((c) => c.content.includes(code))).toBe(true);
      }
    },
  );
});
