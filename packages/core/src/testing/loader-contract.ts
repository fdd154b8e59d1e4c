import { describe, expect, it } from '@jest/globals';
import type { LoadedDocument } from '../documents';
import type { LoadContext, LoadProgress, LoadRequest, SkippedItem, SourceLoader } from '../loader';

export interface LoaderContractFixture {
  /** Builds the loader (and whatever fake server it needs) for one test. */
  setup(): Promise<{ loader: SourceLoader; request: LoadRequest; teardown: () => Promise<void> }>;
  /** A request `validate` must refuse. */
  invalidRequest: LoadRequest;
}

export async function collect(
  loader: SourceLoader,
  request: LoadRequest,
  signal: AbortSignal = new AbortController().signal,
): Promise<{ documents: LoadedDocument[]; progress: LoadProgress[]; skipped: SkippedItem[] }> {
  const progress: LoadProgress[] = [];
  const skipped: SkippedItem[] = [];
  const context: LoadContext = {
    signal,
    progress: (p) => progress.push(p),
    skipped: (item) => skipped.push(item),
  };
  const documents: LoadedDocument[] = [];
  for await (const doc of loader.load(request, context)) documents.push(doc);
  return { documents, progress, skipped };
}

/**
 * Conformance suite every `SourceLoader` package runs: documents have a source and text,
 * progress is reported, bad requests are refused, and an aborted load stops.
 */
export function describeLoaderContract(name: string, fixture: LoaderContractFixture): void {
  describe(`${name} (SourceLoader contract)`, () => {
    it('yields documents with a source, text and a link', async () => {
      const { loader, request, teardown } = await fixture.setup();
      try {
        const { documents } = await collect(loader, request);
        expect(documents.length).toBeGreaterThan(0);
        for (const doc of documents) {
          expect(typeof doc.source).toBe('string');
          expect(doc.source.length).toBeGreaterThan(0);
          const text = doc.parts ? doc.parts.map((p) => p.text).join(' ') : doc.content;
          expect(text.trim().length).toBeGreaterThan(0);
        }
      } finally {
        await teardown();
      }
    });

    it('reports progress while loading', async () => {
      const { loader, request, teardown } = await fixture.setup();
      try {
        const { progress } = await collect(loader, request);
        expect(progress.length).toBeGreaterThan(0);
        for (const p of progress) expect(p.current).toBeLessThanOrEqual(Math.max(p.total, p.current));
      } finally {
        await teardown();
      }
    });

    it('refuses an invalid request in validate()', async () => {
      const { loader, teardown } = await fixture.setup();
      try {
        expect(() => loader.validate(fixture.invalidRequest)).toThrow();
      } finally {
        await teardown();
      }
    });

    it('stops when its signal is aborted', async () => {
      const { loader, request, teardown } = await fixture.setup();
      try {
        const controller = new AbortController();
        controller.abort();
        await expect(collect(loader, request, controller.signal)).rejects.toThrow();
      } finally {
        await teardown();
      }
    });
  });
}
