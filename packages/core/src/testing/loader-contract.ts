import { describe, expect, it } from '@jest/globals';
import type { LoadedDocument } from '../documents';
import { KbqaError } from '../errors';
import type { LoadContext, LoadProgress, LoadRequest, SkippedItem, SourceLoader } from '../loader';

export interface LoaderContractFixture {
  /**
   * Builds the loader (and whatever fake server it needs) for one test. `skipping` is a request
   * whose load passes over at least one item, for loaders that can skip (sites, repositories).
   */
  setup(): Promise<{
    loader: SourceLoader;
    request: LoadRequest;
    skipping?: LoadRequest;
    teardown: () => Promise<void>;
  }>;
  /** A request `validate` must refuse. */
  invalidRequest: LoadRequest;
}

export async function collect(
  loader: SourceLoader,
  request: LoadRequest,
  signal: AbortSignal = new AbortController().signal,
): Promise<{
  documents: LoadedDocument[];
  progress: LoadProgress[];
  skipped: SkippedItem[];
  /** What the loader reported through `unmatchedPaths`, by field. */
  unmatched: Partial<Record<'includePaths' | 'excludePaths', string[]>>;
}> {
  const progress: LoadProgress[] = [];
  const skipped: SkippedItem[] = [];
  const unmatched: Partial<Record<'includePaths' | 'excludePaths', string[]>> = {};
  const context: LoadContext = {
    signal,
    progress: (p) => progress.push(p),
    skipped: (item) => skipped.push(item),
    unmatchedPaths: (field, patterns) => {
      unmatched[field] = patterns;
    },
  };
  const documents: LoadedDocument[] = [];
  for await (const doc of loader.load(request, context)) documents.push(doc);
  return { documents, progress, skipped, unmatched };
}

/** An absolute http(s) URL, or a file: URL (the files of a watched folder). */
function isLinkUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'file:';
  } catch {
    return false;
  }
}

/** Throws unless every document has a source, text, and an absolute http(s) or file: link (parts too). */
export function checkDocuments(documents: LoadedDocument[]): void {
  if (documents.length === 0) throw new Error('the load yielded no document');
  for (const doc of documents) {
    if (typeof doc.source !== 'string' || doc.source.length === 0) {
      throw new Error(`a document has no source: ${JSON.stringify(doc).slice(0, 200)}`);
    }
    const text = doc.parts ? doc.parts.map((p) => p.text).join(' ') : doc.content;
    if (!text.trim()) throw new Error(`document ${doc.source} has no text`);
    if (!isLinkUrl(doc.link))
      throw new Error(`document ${doc.source} has no http(s) or file: link: ${String(doc.link)}`);
    for (const part of doc.parts ?? []) {
      if (!isLinkUrl(part.link))
        throw new Error(`a part of ${doc.source} has no http(s) or file: link: ${part.link}`);
    }
  }
}

/**
 * Throws unless progress was reported, with whole non-negative counts, `current` within `total`
 * once a total is known, `current` never going back within a step, and some progress made.
 */
export function checkProgress(progress: LoadProgress[]): void {
  if (progress.length === 0) throw new Error('no progress was reported');
  const lastByStep = new Map<string, number>();
  for (const p of progress) {
    if (!Number.isInteger(p.current) || !Number.isInteger(p.total) || p.current < 0 || p.total < 0) {
      throw new Error(`progress counts must be whole and non-negative: ${JSON.stringify(p)}`);
    }
    if (p.total > 0 && p.current > p.total) throw new Error(`progress past its total: ${JSON.stringify(p)}`);
    const before = lastByStep.get(p.step) ?? 0;
    if (p.current < before) throw new Error(`progress went back from ${before}: ${JSON.stringify(p)}`);
    lastByStep.set(p.step, p.current);
  }
  if (Math.max(...progress.map((p) => p.current)) === 0) throw new Error('progress never moved past 0');
}

/** Throws unless `validate` refuses the request with a KbqaError coded BAD_REQUEST. */
export function checkRefusal(loader: SourceLoader, request: LoadRequest): void {
  try {
    loader.validate(request);
  } catch (e) {
    if (e instanceof KbqaError && e.code === 'BAD_REQUEST') return;
    throw new Error(`validate threw ${e instanceof KbqaError ? e.code : String(e)}, not BAD_REQUEST`);
  }
  throw new Error(`validate accepted ${JSON.stringify(request)}`);
}

/**
 * Aborts a load once it has yielded its first document and throws unless the load then ends
 * with a KbqaError coded ABORTED (an aborted load never ends as if it had finished).
 */
export async function checkAbortMidLoad(loader: SourceLoader, request: LoadRequest): Promise<void> {
  const controller = new AbortController();
  const context: LoadContext = {
    signal: controller.signal,
    progress: () => undefined,
    skipped: () => undefined,
  };
  let seen = 0;
  try {
    for await (const doc of loader.load(request, context)) {
      void doc;
      seen += 1;
      controller.abort();
    }
  } catch (e) {
    if (e instanceof KbqaError && e.code === 'ABORTED') return;
    throw new Error(`an aborted load ended with ${e instanceof KbqaError ? e.code : String(e)}, not ABORTED`);
  }
  throw new Error(`an aborted load ended normally after ${seen} document(s)`);
}

/** Throws unless at least one item was reported skipped, each with a URL, a code and a reason apart. */
export function checkSkipped(skipped: SkippedItem[]): void {
  if (skipped.length === 0) throw new Error('nothing was reported skipped');
  for (const item of skipped) {
    if (!item.url || !item.code || !item.reason?.trim()) {
      throw new Error(`a skipped item lacks a URL, code or reason: ${JSON.stringify(item)}`);
    }
    if (item.reason.startsWith(`${item.code}:`))
      throw new Error(`the code is glued into the reason: ${item.reason}`);
  }
}

/**
 * Conformance suite every `SourceLoader` package runs: documents have a source, text and a link,
 * progress is reported and moves forward, bad requests are a BAD_REQUEST, an abort before or
 * during a load ends it with ABORTED, and skipped items are reported with their reason.
 */
export function describeLoaderContract(name: string, fixture: LoaderContractFixture): void {
  describe(`${name} (SourceLoader contract)`, () => {
    const withLoader = async (
      fn: (setup: Awaited<ReturnType<LoaderContractFixture['setup']>>) => Promise<void> | void,
    ) => {
      const setup = await fixture.setup();
      try {
        await fn(setup);
      } finally {
        await setup.teardown();
      }
    };

    it('yields documents with a source, text and an http(s) or file: link', () =>
      withLoader(async ({ loader, request }) => checkDocuments((await collect(loader, request)).documents)));

    it('reports progress that moves forward', () =>
      withLoader(async ({ loader, request }) => checkProgress((await collect(loader, request)).progress)));

    it('refuses an invalid request in validate() with BAD_REQUEST', () =>
      withLoader(({ loader }) => checkRefusal(loader, fixture.invalidRequest)));

    it('ends with ABORTED when its signal is aborted before the load', () =>
      withLoader(async ({ loader, request }) => {
        const controller = new AbortController();
        controller.abort();
        await expect(collect(loader, request, controller.signal)).rejects.toMatchObject({ code: 'ABORTED' });
      }));

    it('ends with ABORTED when its signal is aborted in the middle of the load', () =>
      withLoader(({ loader, request }) => checkAbortMidLoad(loader, request)));

    it('reports what it skips, with the reason', () =>
      withLoader(async ({ loader, skipping }) => {
        if (!skipping) return; // this loader has nothing to skip (one page, one video)
        checkSkipped((await collect(loader, skipping)).skipped);
      }));
  });
}
