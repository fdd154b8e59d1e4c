import { KbqaError } from '@kbqa/core';

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
const WATCH_HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com', 'music.youtube.com']);
const EMBED_HOSTS = new Set(['youtube-nocookie.com', 'www.youtube-nocookie.com']);
const ACCEPTED =
  'accepted: https://www.youtube.com/watch?v=<id>, https://youtu.be/<id>, https://www.youtube.com/shorts/<id>, ' +
  'https://www.youtube.com/embed/<id>, https://www.youtube.com/live/<id> (also on m. and music.) or an 11-character video id';

/** The canonical watch URL of a video, which is the document's source and link. */
export function watchUrl(videoId: string): string {
  return `https://www.youtube.com/watch?v=${videoId}`;
}

/**
 * The 11-character id of a video from a watch, youtu.be, shorts, embed or live URL, or a bare id.
 * Anything else (channels, playlists, other hosts) is a `BAD_REQUEST`.
 */
export function parseVideoId(input: unknown): string {
  const refuse = (why: string) =>
    new KbqaError(
      'BAD_REQUEST',
      `unsupported YouTube URL ${JSON.stringify(String(input).slice(0, 200))} (${why}); ${ACCEPTED}`,
    );
  if (typeof input !== 'string' || input.trim() === '') throw refuse('a URL is required');
  const raw = input.trim();
  if (VIDEO_ID.test(raw)) return raw;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch {
    throw refuse('it is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('only http(s) URLs are accepted');
  const host = url.hostname.toLowerCase();
  if (host !== 'youtu.be' && !WATCH_HOSTS.has(host) && !EMBED_HOSTS.has(host)) {
    throw refuse(`${host} is not a YouTube host`);
  }
  if (url.username || url.password) throw refuse('a YouTube URL carries no credentials');
  if (url.port) throw refuse('a YouTube URL has no port');
  const segments = url.pathname.split('/').filter((s) => s !== '');
  let id: string | null | undefined;
  if (host === 'youtu.be') {
    if (segments.length === 1) id = segments[0];
  } else if (WATCH_HOSTS.has(host)) {
    if (segments.length === 1 && segments[0] === 'watch') id = url.searchParams.get('v');
    else if (segments.length === 2 && ['shorts', 'embed', 'live', 'v'].includes(segments[0] ?? ''))
      id = segments[1];
  } else if (segments.length === 2 && segments[0] === 'embed') {
    id = segments[1];
  }
  if (!id || !VIDEO_ID.test(id)) throw refuse('no video id found');
  return id;
}
