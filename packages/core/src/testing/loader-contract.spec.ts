import { describe, expect, it } from '@jest/globals';
import type { LoadedDocument } from '../documents';
import { KbqaError } from '../errors';
import type { LoadContext, LoadRequest, SourceLoader } from '../loader';
import {
  checkAbortMidLoad,
  checkDocuments,
  checkProgress,
  checkRefusal,
  checkSkipped,
} from './loader-contract';

const doc = (n: number, link = `https://docs.example.com/${n}`): LoadedDocument => ({
  source: `https://docs.example.com/${n}`,
  content: `text ${n}`,
  link,
});

/** A loader whose every behaviour the test picks, to show each contract check can fail. */
function fakeLoader(options: {
  documents?: LoadedDocument[];
  validateError?: Error;
  ignoreAbort?: boolean;
}): SourceLoader {
  return {
    type: 'url',
    validate(request: LoadRequest) {
      if (request.url.startsWith('file:')) throw options.validateError ?? new KbqaError('BAD_REQUEST', 'no');
    },
    async *load(_request: LoadRequest, context: LoadContext) {
      for (const d of options.documents ?? [doc(1), doc(2), doc(3)]) {
        if (!options.ignoreAbort && context.signal.aborted) throw new KbqaError('ABORTED', 'cancelled');
        await Promise.resolve();
        yield d;
      }
    },
  };
}

describe('describeLoaderContract checks', () => {
  it('accept a loader that keeps the contract', async () => {
    const loader = fakeLoader({});
    checkDocuments([doc(1)]);
    checkRefusal(loader, { url: 'file:///x' });
    await checkAbortMidLoad(loader, { url: 'https://docs.example.com/' });
    checkProgress([
      { step: 'SCRAPING', current: 0, total: 2 },
      { step: 'SCRAPING', current: 2, total: 2 },
    ]);
    checkSkipped([{ url: 'https://docs.example.com/x.pdf', code: 'NOT_HTML', reason: 'not an HTML page' }]);
  });

  it('fail a document without a link, or with a link that is not http(s) or file:', () => {
    expect(() => checkDocuments([{ ...doc(1), link: undefined }])).toThrow('has no http(s) or file: link');
    expect(() => checkDocuments([doc(1, 'docs/intro.md')])).toThrow('has no http(s) or file: link');
    expect(() => checkDocuments([])).toThrow('no document');
  });

  it('fail validate() that throws anything but BAD_REQUEST, or nothing', () => {
    expect(() =>
      checkRefusal(fakeLoader({ validateError: new Error('boom') }), { url: 'file:///x' }),
    ).toThrow('not BAD_REQUEST');
    expect(() =>
      checkRefusal(fakeLoader({ validateError: new KbqaError('FETCH_FAILED', 'x') }), { url: 'file:///x' }),
    ).toThrow('FETCH_FAILED, not BAD_REQUEST');
    expect(() => checkRefusal(fakeLoader({}), { url: 'https://ok.example/' })).toThrow('validate accepted');
  });

  it('fail a load that goes on, or ends normally, after an abort in its middle', async () => {
    await expect(
      checkAbortMidLoad(fakeLoader({ ignoreAbort: true }), { url: 'https://x.example/' }),
    ).rejects.toThrow('ended normally after 3 document(s)');
  });

  it('fail progress that is missing, runs past its total, goes back or never moves', () => {
    expect(() => checkProgress([])).toThrow('no progress');
    expect(() => checkProgress([{ step: 'SCRAPING', current: 3, total: 2 }])).toThrow('past its total');
    expect(() =>
      checkProgress([
        { step: 'SCRAPING', current: 2, total: 5 },
        { step: 'SCRAPING', current: 1, total: 5 },
      ]),
    ).toThrow('went back');
    expect(() => checkProgress([{ step: 'SCRAPING', current: 0, total: 0 }])).toThrow('never moved');
  });

  it('fail skip reporting that is silent or gives no reason', () => {
    expect(() => checkSkipped([])).toThrow('nothing was reported skipped');
    expect(() => checkSkipped([{ url: 'https://x.example/a', code: 'FAILED', reason: ' ' }])).toThrow(
      'lacks a URL, code or reason',
    );
    expect(() =>
      checkSkipped([{ url: 'https://x.example/a', code: 'FAILED', reason: 'FAILED: HTTP 500' }]),
    ).toThrow('glued');
  });
});
