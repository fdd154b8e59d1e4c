import {
  DEFAULT_CHUNKER_OPTIONS,
  KbqaError,
  type Chunker,
  type ChunkerOptions,
  type ChunkDraft,
  type DocumentPart,
  type LoadedDocument,
} from '@kbqa/core';
import {
  extractiveSummary,
  sentenceStarts,
  stripCallouts,
  parseMarkdown,
  type BlockKind,
  type MarkdownBlock,
} from '@kbqa/text';
import { withContentHash } from './embedding-text';
import { splitBlock, splitText } from './split';
import { DEFAULT_SUMMARY_MAX_CHARS, documentTitle } from './summary';

/** A chunk before numbering and hashing. */
interface Piece {
  content: string;
  headingPath: string[];
  link?: string;
}

const SEP = '\n\n';

function resolveOptions(partial: Partial<ChunkerOptions>): ChunkerOptions {
  const options: ChunkerOptions = { ...DEFAULT_CHUNKER_OPTIONS };
  for (const key of ['targetSize', 'maxSize', 'overlap'] as const) {
    const value = partial[key];
    if (value !== undefined) options[key] = value;
    if (!Number.isSafeInteger(options[key])) {
      throw new KbqaError('BAD_REQUEST', `chunker ${key} must be an integer, got ${String(options[key])}`);
    }
  }
  const { targetSize, maxSize, overlap } = options;
  if (overlap < 0) throw new KbqaError('BAD_REQUEST', `chunker overlap must not be negative, got ${overlap}`);
  if (targetSize < 1)
    throw new KbqaError('BAD_REQUEST', `chunker targetSize must be positive, got ${targetSize}`);
  if (overlap >= targetSize) {
    throw new KbqaError(
      'BAD_REQUEST',
      `chunker overlap (${overlap}) must be below targetSize (${targetSize})`,
    );
  }
  if (targetSize > maxSize) {
    throw new KbqaError(
      'BAD_REQUEST',
      `chunker targetSize (${targetSize}) must not exceed maxSize (${maxSize})`,
    );
  }
  return options;
}

/** Code blocks and lists are split only when they exceed `maxSize` on their own. */
function isAtomic(kind: BlockKind): boolean {
  return kind === 'code' || kind === 'list';
}

/**
 * Packs the blocks of one markdown document into pieces, section by section. State lives in
 * one object per document so the chunker itself stays stateless and reentrant.
 */
class SectionPacker {
  readonly out: Piece[] = [];
  private cur: string[] = [];
  private curSize = 0;
  private curPath: string[] = [];
  /** Heading level of the section the current chunk started in (0 before any heading). */
  private curStartLevel = 0;
  /** Heading lines seen since the last body block: they go with the next body block. */
  private pending: string[] = [];
  private pendingSize = 0;
  private readonly stack: { level: number; title: string }[] = [];
  private sectionLevel = 0;
  /** Last body block of the current chunk; the overlap is cut from it. */
  private last: { kind: BlockKind; text: string } | undefined;
  private readonly minMerge: number;

  constructor(private readonly options: ChunkerOptions) {
    this.minMerge = Math.floor(options.targetSize / 4);
  }

  add(block: MarkdownBlock): void {
    // A "heading" too long to be one (a whole paragraph after `#`) is treated as text.
    if (block.kind === 'heading' && block.text.length <= this.options.maxSize / 2) this.heading(block);
    else this.body(block);
  }

  finish(): Piece[] {
    if (this.pending.length > 0) {
      const size = this.curSize + SEP.length + this.pendingSize;
      if (this.cur.length > 0 && size <= this.options.maxSize) {
        this.cur.push(...this.pending);
        this.pending = [];
      }
      this.flush();
      this.emitPending();
    }
    this.flush();
    return this.out;
  }

  private path(): string[] {
    return this.stack.map((h) => h.title);
  }

  private heading(block: Extract<MarkdownBlock, { kind: 'heading' }>): void {
    if (
      this.pending.length > 0 &&
      this.pendingSize + SEP.length + block.text.length > this.options.targetSize
    ) {
      this.flush();
      this.emitPending();
    }
    while (this.stack.length > 0 && (this.stack[this.stack.length - 1]?.level ?? 0) >= block.level)
      this.stack.pop();
    this.stack.push({ level: block.level, title: block.title });
    this.sectionLevel = block.level;
    this.pendingSize =
      this.pending.length === 0 ? block.text.length : this.pendingSize + SEP.length + block.text.length;
    this.pending.push(block.text);
  }

  private body(block: MarkdownBlock): void {
    const { targetSize, maxSize } = this.options;
    const prefix = this.pending.length > 0 ? this.pendingSize + SEP.length : 0;
    const limit = isAtomic(block.kind) ? maxSize : maxSize - prefix;
    const pieces = block.text.length <= limit ? [block.text] : splitBlock(block, targetSize, maxSize);
    for (const piece of pieces) this.addBody(piece, block.kind);
  }

  private addBody(text: string, kind: BlockKind): void {
    const { targetSize, maxSize } = this.options;
    const len = text.length;
    if (this.pending.length > 0) {
      const merged = this.curSize + SEP.length + this.pendingSize + SEP.length + len;
      const merge =
        this.cur.length > 0 &&
        this.curSize < this.minMerge &&
        this.sectionLevel >= this.curStartLevel &&
        merged <= targetSize;
      if (merge) {
        // A preamble before any heading (a banner, a badge line) says nothing about the chunk;
        // the first section merged into it does, so its path is the one searched and shown.
        if (this.curPath.length === 0) this.start();
        this.append(this.pending, this.pendingSize);
        this.append([text], len);
      } else {
        this.flush();
        if (this.pendingSize + SEP.length + len > maxSize) this.emitPending();
        this.start();
        if (this.pending.length > 0) this.append(this.pending, this.pendingSize);
        this.append([text], len);
      }
      this.pending = [];
      this.pendingSize = 0;
    } else if (this.cur.length === 0) {
      this.start();
      this.append([text], len);
    } else if (
      this.curSize + SEP.length + len <= targetSize ||
      // A short lead-in ("These options exist:") stays with what it introduces.
      (this.curSize < this.minMerge && this.curSize + SEP.length + len <= maxSize)
    ) {
      this.append([text], len);
    } else {
      const overlap = this.overlapText();
      this.flush();
      this.start();
      if (overlap && overlap.length + SEP.length + len <= maxSize) this.append([overlap], overlap.length);
      this.append([text], len);
    }
    this.last = { kind, text };
  }

  private start(): void {
    this.curPath = this.path();
    this.curStartLevel = this.sectionLevel;
  }

  private append(texts: string[], size: number): void {
    this.curSize = this.cur.length === 0 ? size : this.curSize + SEP.length + size;
    this.cur.push(...texts);
  }

  private flush(): void {
    if (this.cur.length === 0) return;
    const content = this.cur.join(SEP).trim();
    if (content) this.out.push({ content, headingPath: this.curPath });
    this.cur = [];
    this.curSize = 0;
    this.last = undefined;
  }

  /** Headings with no body of their own (yet) become a chunk so their text is not lost. */
  private emitPending(): void {
    if (this.pending.length === 0) return;
    this.out.push({ content: this.pending.join(SEP).trim(), headingPath: this.path() });
    this.pending = [];
    this.pendingSize = 0;
  }

  /**
   * Up to `overlap` characters from the end of the last body block, starting at a sentence or
   * line boundary. Only prose, quotes and lists give an overlap, and never one that would carry
   * half a code fence.
   */
  private overlapText(): string {
    const { overlap } = this.options;
    const last = this.last;
    if (overlap === 0 || !last) return '';
    if (last.kind !== 'paragraph' && last.kind !== 'quote' && last.kind !== 'list') return '';
    const text = last.text;
    let cut = 0;
    if (text.length > overlap) {
      const from = text.length - overlap;
      const tail = text.slice(from);
      const newline = tail.indexOf('\n');
      // Sentence starts of the whole block: a tail cut inside inline code would pair its backticks wrongly.
      const sentence = (sentenceStarts(text).find((s) => s > from) ?? -1) - from;
      const candidates = [newline === -1 ? -1 : newline + 1, sentence].filter((c) => c > 0);
      if (candidates.length === 0) return '';
      cut = from + Math.min(...candidates);
    }
    const result = text.slice(cut).trim();
    return result.includes('```') || result.includes('~~~') ? '' : result;
  }
}

/**
 * Markdown- and heading-aware chunker; see the package README for the rules. Synchronous and
 * stateless between calls, so one instance serves every document.
 */
export class MarkdownChunker implements Chunker {
  readonly options: Readonly<ChunkerOptions>;

  /** @throws KbqaError BAD_REQUEST unless 0 <= overlap < targetSize <= maxSize (integers). */
  constructor(options: Partial<ChunkerOptions> = {}) {
    this.options = Object.freeze(resolveOptions(options));
  }

  chunk(document: LoadedDocument): ChunkDraft[] {
    const link = document.link ?? document.source;
    const parts = document.parts;
    let pieces: Piece[];
    let title: string;
    let text: string;
    if (parts && parts.length > 0) {
      pieces = this.packParts(parts);
      title = documentTitle(document, []);
      text = parts.map((p) => p.text).join(SEP);
    } else {
      // Every markdown document passes here, whatever loaded it: the one place where the markup
      // of docs-generator callouts (`:::tip`, `!!! note`, `> [!NOTE]`...) leaves the text.
      text = stripCallouts(document.content);
      const blocks = parseMarkdown(text);
      const packer = new SectionPacker(this.options);
      for (const block of blocks) packer.add(block);
      pieces = packer.finish();
      title = documentTitle(document, blocks);
    }
    const drafts = pieces.map((p, ordinal) =>
      withContentHash({
        ordinal,
        content: p.content,
        headingPath: p.headingPath,
        title,
        link: p.link ?? link,
        kind: 'content',
      }),
    );
    if (document.summarize && drafts.length > 0) {
      const maxChars = document.summarize.maxChars ?? DEFAULT_SUMMARY_MAX_CHARS;
      if (!Number.isSafeInteger(maxChars) || maxChars < 1) {
        throw new KbqaError('BAD_REQUEST', `summarize.maxChars must be a positive integer, got ${maxChars}`);
      }
      const content = extractiveSummary(text, Math.min(maxChars, this.options.maxSize));
      if (content) {
        drafts.push(
          withContentHash({ ordinal: drafts.length, content, headingPath: [], title, link, kind: 'summary' }),
        );
      }
    }
    return drafts;
  }

  /** Parts are paragraphs packed in order; a chunk takes the link of its first part. No overlap. */
  private packParts(parts: DocumentPart[]): Piece[] {
    const { targetSize, maxSize } = this.options;
    const out: Piece[] = [];
    let cur: string[] = [];
    let size = 0;
    let link = '';
    const flush = (): void => {
      if (cur.length > 0) out.push({ content: cur.join(SEP), headingPath: [], link });
      cur = [];
      size = 0;
    };
    for (const part of parts) {
      const text = part.text.trim();
      if (!text) continue;
      for (const piece of text.length <= maxSize ? [text] : splitText(text, targetSize)) {
        if (cur.length > 0 && size + SEP.length + piece.length > targetSize) flush();
        if (cur.length === 0) link = part.link;
        size = cur.length === 0 ? piece.length : size + SEP.length + piece.length;
        cur.push(piece);
      }
    }
    flush();
    return out;
  }
}
