import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KbqaError } from '@kbqa/core';
import { collect, describeLoaderContract } from '@kbqa/core/testing';
import { startFakeYoutube, type FakeVideo, type FakeYoutube } from '../test/fake-youtube';
import { SafeFetcher } from '@kbqa/fetcher';
import { fetcherFetch } from './fetcher-fetch';
import { redirectingFetch } from './redirecting-fetch';
import { YoutubeLoader, type YoutubeLoaderOptions } from './youtube.loader';

const sentences = (prefix: string, count: number, from = 0): [number, string][] =>
  Array.from({ length: count }, (_, i) => [
    from + i * 4.5,
    `${prefix} sentence number ${i} is about forty chars.`,
  ]);

const VIDEOS: Record<string, FakeVideo> = {
  dQw4w9WgXcQ: {
    title: 'Never gonna give you up & other songs',
    tracks: {
      de: [[0, 'Hallo Welt.']],
      en: [[1.2, "Q&A: it's 5 > 3, isn't it?"], ...sentences('English', 40, 3)],
    },
  },
  frOnly_0001: { title: 'Une vidéo', tracks: { fr: [[0, 'Bonjour tout le monde.']], es: [[0, 'Hola.']] } },
  enUS_000001: { title: 'US English', tracks: { fr: [[0, 'Bonjour.']], 'en-US': [[0, 'Howdy folks.']] } },
  classic0001: {
    title: 'Classic format',
    format: 'classic',
    innertube: false,
    tracks: { en: [[65.5, 'Tom &amp; Jerry&#39;s <font color="#fff">show</font>.']] },
  },
  noCaptions1: { title: 'Silent film', tracks: {} },
};

describe(YoutubeLoader.name, () => {
  let site: FakeYoutube;
  const loader = (options: Partial<YoutubeLoaderOptions> = {}) =>
    new YoutubeLoader({ fetch: redirectingFetch(site.origin, fetch), passageChars: 300, ...options });

  beforeAll(async () => {
    site = await startFakeYoutube(VIDEOS);
  });
  afterAll(async () => {
    await site.close();
  });

  it('ingests the transcript as passages that link to their moment in the video', async () => {
    const { documents } = await collect(loader(), {
      url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s',
    });
    expect(documents).toHaveLength(1);
    const [doc] = documents;
    expect(doc).toMatchObject({
      source: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
      link: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
      title: 'Never gonna give you up & other songs',
    });
    const parts = doc?.parts ?? [];
    expect(parts.length).toBeGreaterThan(3);
    expect(parts[0]?.link).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=1s');
    expect(parts[0]?.text.startsWith("Q&A: it's 5 > 3, isn't it? English sentence number 0")).toBe(true);
    for (const part of parts) {
      expect(part.text.length).toBeLessThanOrEqual(300 + 60);
      expect(part.link).toMatch(/^https:\/\/www\.youtube\.com\/watch\?v=dQw4w9WgXcQ&t=\d+s$/);
    }
    // The second passage starts at the caption line right after the first one ends.
    const firstLines = parts[0]?.text.match(/English sentence number \d+/g) ?? [];
    const next = firstLines.length; // line index in the English list of the second passage's start
    expect(parts[1]?.link).toBe(
      `https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=${Math.floor(3 + next * 4.5)}s`,
    );
    expect(doc?.content).toBe(parts.map((p) => p.text).join('\n\n'));
  });

  it.each([
    'https://youtu.be/dQw4w9WgXcQ',
    'https://www.youtube.com/shorts/dQw4w9WgXcQ',
    'https://www.youtube.com/embed/dQw4w9WgXcQ?start=10',
    'https://m.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://music.youtube.com/watch?v=dQw4w9WgXcQ&list=RD',
    'youtube.com/watch?v=dQw4w9WgXcQ',
    'dQw4w9WgXcQ',
  ])('accepts %s', async (url) => {
    const { documents } = await collect(loader(), { url });
    expect(documents[0]?.source).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
  });

  it('falls back to the first track when the preferred language is missing', async () => {
    const { documents } = await collect(loader({ lang: 'en' }), { url: 'https://youtu.be/frOnly_0001' });
    expect(documents[0]).toMatchObject({ title: 'Une vidéo', parts: [{ text: 'Bonjour tout le monde.' }] });
  });

  it('prefers a regional variant of the preferred language over the first track', async () => {
    const { documents } = await collect(loader({ lang: 'en' }), { url: 'enUS_000001' });
    expect(documents[0]?.parts?.[0]?.text).toBe('Howdy folks.');
  });

  it('uses the configured language when the video has it', async () => {
    const { documents } = await collect(loader({ lang: 'de' }), { url: 'dQw4w9WgXcQ' });
    expect(documents[0]?.parts).toEqual([
      { text: 'Hallo Welt.', link: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=0s' },
    ]);
  });

  it('reads the watch page when the player API fails, in the classic format with entities decoded', async () => {
    const { documents } = await collect(loader(), { url: 'https://www.youtube.com/watch?v=classic0001' });
    expect(documents[0]).toMatchObject({
      title: 'Classic format',
      parts: [{ text: "Tom & Jerry's show.", link: 'https://www.youtube.com/watch?v=classic0001&t=65s' }],
    });
  });

  it('fails with NO_CONTENT when the video has no captions', async () => {
    await expect(collect(loader(), { url: 'https://youtu.be/noCaptions1' })).rejects.toEqual(
      new KbqaError('NO_CONTENT', 'the video has no captions'),
    );
  });

  it('fails with NOT_FOUND when the video does not exist', async () => {
    await expect(collect(loader(), { url: 'https://youtu.be/missing0001' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('loads through the safe fetcher, under its address policy', async () => {
    const strict = new SafeFetcher({ retries: 0 });
    const allowing = new SafeFetcher({ retries: 0, allowPrivateHosts: [new URL(site.origin).host] });
    try {
      const refused = loader({ fetch: redirectingFetch(site.origin, fetcherFetch(strict)) });
      await expect(collect(refused, { url: 'dQw4w9WgXcQ' })).rejects.toMatchObject({
        message: expect.stringContaining('loopback address'),
      });
      const allowed = loader({ fetch: redirectingFetch(site.origin, fetcherFetch(allowing)) });
      const { documents } = await collect(allowed, { url: 'dQw4w9WgXcQ' });
      expect(documents).toHaveLength(1);
      expect(documents[0]?.parts?.length).toBeGreaterThan(0);
    } finally {
      strict.close();
      allowing.close();
    }
  });

  it('sends every request to the injected fetch', async () => {
    const before = site.requests.length;
    await collect(loader(), { url: 'dQw4w9WgXcQ' });
    expect(site.requests.slice(before)).toEqual([
      'POST /youtubei/v1/player?prettyPrint=false',
      'GET /api/timedtext?v=dQw4w9WgXcQ&lang=en',
    ]);
  });

  it.each([
    'https://www.youtube.com/channel/UC123',
    'https://www.youtube.com/playlist?list=PL123',
    'https://www.youtube.com/watch?v=short',
    'https://vimeo.com/123456',
    'https://evil.example.com/watch?v=dQw4w9WgXcQ',
    'https://www.youtube.com.evil.example/watch?v=dQw4w9WgXcQ',
    'file:///etc/passwd',
    'ftp://youtube.com/watch?v=dQw4w9WgXcQ',
    'https://user:pw@www.youtube.com/watch?v=dQw4w9WgXcQ',
    'dQw4w9WgXc',
    '',
  ])('refuses %j in validate()', (url) => {
    let error: unknown;
    try {
      loader().validate({ url });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(KbqaError);
    expect(error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('accepted:') });
  });

  it.each([
    ['http://127.0.0.1:4102/page', '127.0.0.1 is not a YouTube host'],
    ['https://docs.example.com:8443/intro', 'docs.example.com is not a YouTube host'],
    ['https://www.youtube.com:8443/watch?v=dQw4w9WgXcQ', 'a YouTube URL has no port'],
    ['https://user:pw@youtu.be/dQw4w9WgXcQ', 'a YouTube URL carries no credentials'],
  ])('gives the real reason for refusing %j', (url, reason) => {
    expect(() => loader().validate({ url })).toThrow(reason);
  });

  describeLoaderContract('YoutubeLoader', {
    setup: () =>
      Promise.resolve({
        loader: loader(),
        request: { url: 'https://youtu.be/dQw4w9WgXcQ' },
        teardown: () => Promise.resolve(),
      }),
    invalidRequest: { url: 'https://example.com/video' },
  });
});

describe(redirectingFetch.name, () => {
  it('sends YouTube requests to the origin and leaves other hosts alone', async () => {
    const seen: string[] = [];
    const base = ((input: Parameters<typeof fetch>[0]) => {
      seen.push(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      return Promise.resolve(new Response('ok'));
    }) as typeof fetch;
    const redirected = redirectingFetch('http://127.0.0.1:9/yt/', base);
    await redirected('https://www.youtube.com/watch?v=abc&x=1');
    await redirected(new URL('https://youtube.com/youtubei/v1/player?prettyPrint=false'));
    await redirected('https://example.com/watch?v=abc');
    await redirected('http://www.youtube.com/watch?v=abc');
    expect(seen).toEqual([
      'http://127.0.0.1:9/yt/watch?v=abc&x=1',
      'http://127.0.0.1:9/yt/youtubei/v1/player?prettyPrint=false',
      'https://example.com/watch?v=abc',
      'http://www.youtube.com/watch?v=abc',
    ]);
  });
});
