import {
  KbqaError,
  type LoadContext,
  type LoadedDocument,
  type LoadRequest,
  type SourceLoader,
} from '@kbqa/core';
import {
  YoutubeTranscript,
  YoutubeTranscriptDisabledError,
  YoutubeTranscriptNotAvailableError,
  YoutubeTranscriptNotAvailableLanguageError,
  YoutubeTranscriptTooManyRequestError,
  YoutubeTranscriptVideoUnavailableError,
  type TranscriptResponse,
} from 'youtube-transcript';
import { cleanCaption, groupPassages, type CaptionLine } from './passages';
import { parseVideoId, watchUrl } from './video-url';

export interface YoutubeLoaderOptions {
  /**
   * Every request of the loader goes through this function (youtube-transcript's `fetch` option):
   * the InnerTube player API, the watch page as a fallback, and the timed-text track. The API
   * passes `redirectingFetch(KBQA_YOUTUBE_ORIGIN, fetch)` when that origin is configured.
   */
  fetch: typeof fetch;
  /** Preferred caption language; falls back to the same base language, then the first track. Default `en`. */
  lang?: string;
  /** Target length of a passage in characters (about a paragraph). Default 800. */
  passageChars?: number;
}

interface CaptionTrack {
  languageCode: string;
}

/** What the loader learns from the responses youtube-transcript reads, without a request of its own. */
interface Observed {
  title?: string;
  tracks?: CaptionTrack[];
  /** srv3 timed text carries milliseconds (`<p t="1000">`), the classic format seconds. */
  offsetsInMs?: boolean;
}

interface PlayerResponse {
  videoDetails?: { title?: unknown };
  captions?: { playerCaptionsTracklistRenderer?: { captionTracks?: unknown } };
}

/** The object assigned to `var <name> = {...}` in a page, found by brace matching as youtube-transcript does. */
function inlineJson(html: string, name: string): unknown {
  const token = `var ${name} = `;
  const start = html.indexOf(token);
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start + token.length; i < html.length; i++) {
    const c = html[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) {
      try {
        return JSON.parse(html.slice(start + token.length, i + 1));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

function observePlayer(player: unknown, seen: Observed): void {
  if (typeof player !== 'object' || player === null) return;
  const { videoDetails, captions } = player as PlayerResponse;
  if (typeof videoDetails?.title === 'string' && videoDetails.title.trim() !== '')
    seen.title ??= videoDetails.title;
  const tracks = captions?.playerCaptionsTracklistRenderer?.captionTracks;
  if (Array.isArray(tracks)) {
    seen.tracks = tracks.filter(
      (t): t is CaptionTrack => typeof (t as Partial<CaptionTrack> | null)?.languageCode === 'string',
    );
  }
}

async function observe(href: string, response: Response, seen: Observed): Promise<void> {
  const { pathname } = new URL(href);
  if (pathname.endsWith('/youtubei/v1/player')) {
    observePlayer(await response.json(), seen);
  } else if (pathname === '/watch') {
    const html = await response.text();
    observePlayer(inlineJson(html, 'ytInitialPlayerResponse'), seen);
    const meta = /<meta\s+name="title"\s+content="([^"]*)"/i.exec(html)?.[1];
    if (meta) seen.title ??= cleanCaption(meta);
  } else if (pathname.endsWith('/timedtext')) {
    seen.offsetsInMs = /<p\s+t="\d+"\s+d="\d+"/.test(await response.text());
  }
}

function hrefOf(input: Parameters<typeof fetch>[0]): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

/**
 * Ingests the captions of one YouTube video as a document of passages, each linking to its
 * moment in the video. Transcripts come from youtube-transcript through the injected `fetch`.
 */
export class YoutubeLoader implements SourceLoader {
  readonly type = 'youtube' as const;
  private readonly fetch: typeof fetch;
  private readonly lang: string;
  private readonly passageChars: number;

  constructor(options: YoutubeLoaderOptions) {
    this.fetch = options.fetch;
    this.lang = options.lang ?? 'en';
    this.passageChars = options.passageChars ?? 800;
  }

  validate(request: LoadRequest): void {
    parseVideoId(request.url);
  }

  async *load(request: LoadRequest, context: LoadContext): AsyncIterable<LoadedDocument> {
    const videoId = parseVideoId(request.url);
    const { signal } = context;
    if (signal.aborted) throw new KbqaError('ABORTED', 'the load was cancelled');
    const source = watchUrl(videoId);
    context.progress({ step: 'SCRAPING', current: 0, total: 1, message: source });

    const seen: Observed = {};
    const fetchObserved: typeof fetch = async (input, init) => {
      const response = await this.fetch(input, { ...init, signal });
      // Reading a clone lets the loader learn the title and caption format from the responses
      // youtube-transcript already asks for instead of requesting the watch page again.
      await observe(hrefOf(input), response.clone(), seen).catch(() => undefined);
      return response;
    };
    const transcript = await this.transcript(videoId, fetchObserved, seen, signal);

    const toSeconds = seen.offsetsInMs ? 1 / 1000 : 1;
    const lines: CaptionLine[] = transcript.map((line) => ({
      text: cleanCaption(line.text),
      start: line.offset * toSeconds,
    }));
    const parts = groupPassages(lines, source, this.passageChars);
    if (parts.length === 0) throw new KbqaError('NO_CONTENT', 'the video has no captions');
    context.progress({ step: 'SCRAPING', current: 1, total: 1, message: source });
    yield {
      source,
      link: source,
      title: seen.title ?? `YouTube video ${videoId}`,
      content: parts.map((p) => p.text).join('\n\n'),
      parts,
    };
    // Aborted while the transcript was being stored: the load must not end as if it finished.
    if (context.signal.aborted) throw new KbqaError('ABORTED', 'the load was cancelled');
  }

  /** The transcript in the preferred language, else the same base language, else the first track. */
  private async transcript(
    videoId: string,
    fetchFn: typeof fetch,
    seen: Observed,
    signal: AbortSignal,
  ): Promise<TranscriptResponse[]> {
    try {
      try {
        return await YoutubeTranscript.fetchTranscript(videoId, { lang: this.lang, fetch: fetchFn });
      } catch (error) {
        if (!(error instanceof YoutubeTranscriptNotAvailableLanguageError)) throw error;
        const base = this.lang.split('-')[0]?.toLowerCase();
        const sameBase = seen.tracks?.find((t) => t.languageCode.split('-')[0]?.toLowerCase() === base);
        return await YoutubeTranscript.fetchTranscript(videoId, {
          ...(sameBase ? { lang: sameBase.languageCode } : {}),
          fetch: fetchFn,
        });
      }
    } catch (error) {
      throw this.toKbqaError(error, signal);
    }
  }

  private toKbqaError(error: unknown, signal: AbortSignal): KbqaError {
    if (signal.aborted) return new KbqaError('ABORTED', 'the load was cancelled', { cause: error });
    if (error instanceof KbqaError) return error;
    if (
      error instanceof YoutubeTranscriptDisabledError ||
      error instanceof YoutubeTranscriptNotAvailableError
    ) {
      return new KbqaError('NO_CONTENT', 'the video has no captions', { cause: error });
    }
    if (error instanceof YoutubeTranscriptVideoUnavailableError) {
      return new KbqaError('NOT_FOUND', 'the video is not available', { cause: error });
    }
    if (error instanceof YoutubeTranscriptTooManyRequestError) {
      return new KbqaError(
        'RATE_LIMITED',
        'YouTube is refusing requests from this server for now (captcha)',
        {
          cause: error,
        },
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    return new KbqaError('FETCH_FAILED', `fetching the transcript failed: ${message}`, { cause: error });
  }
}
