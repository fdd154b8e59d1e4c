import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeVideo {
  title: string;
  /** Caption tracks by language code, each a list of [start seconds, text]. */
  tracks: Record<string, [number, string][]>;
  /** Timed-text format: srv3 (`<p t="ms">`) or the classic `<text start="s">`. */
  format?: 'srv3' | 'classic';
  /** When false the InnerTube player API fails and youtube-transcript falls back to the watch page. */
  innertube?: boolean;
}

export interface FakeYoutube {
  origin: string;
  /** `METHOD path?query` of every request received. */
  requests: string[];
  close(): Promise<void>;
}

function escapeXml(text: string): string {
  // YouTube encodes caption text twice in classic timed text (`&amp;#39;`); srv3 once.
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&#39;');
}

function playerResponse(id: string, video: FakeVideo | undefined): unknown {
  if (!video) return { playabilityStatus: { status: 'ERROR' } };
  const captionTracks = Object.keys(video.tracks).map((lang) => ({
    baseUrl: `https://www.youtube.com/api/timedtext?v=${id}&lang=${lang}`,
    languageCode: lang,
    name: { simpleText: lang },
  }));
  return {
    playabilityStatus: { status: 'OK' },
    videoDetails: { videoId: id, title: video.title },
    ...(captionTracks.length ? { captions: { playerCaptionsTracklistRenderer: { captionTracks } } } : {}),
  };
}

function timedText(lines: [number, string][], format: 'srv3' | 'classic'): string {
  if (format === 'srv3') {
    const ps = lines.map(([s, t]) => `<p t="${Math.round(s * 1000)}" d="2000"><s>${escapeXml(t)}</s></p>`);
    return `<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><body>${ps.join('')}</body></timedtext>`;
  }
  const texts = lines.map(([s, t]) => `<text start="${s}" dur="2.5">${escapeXml(escapeXml(t))}</text>`);
  return `<?xml version="1.0" encoding="utf-8" ?><transcript>${texts.join('')}</transcript>`;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A stand-in for www.youtube.com answering the three requests youtube-transcript makes. */
export async function startFakeYoutube(videos: Record<string, FakeVideo>): Promise<FakeYoutube> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      requests.push(`${req.method} ${url.pathname}${url.search}`);
      if (req.method === 'POST' && url.pathname === '/youtubei/v1/player') {
        const { videoId } = JSON.parse(await body(req)) as { videoId: string };
        const video = videos[videoId];
        if (video?.innertube === false) {
          res.writeHead(500).end();
          return;
        }
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(playerResponse(videoId, video)));
        return;
      }
      if (req.method === 'GET' && url.pathname === '/watch') {
        const id = url.searchParams.get('v') ?? '';
        const video = videos[id];
        const html = video
          ? `<html><head><meta name="title" content="${video.title}"></head><body><script>` +
            `var ytInitialPlayerResponse = ${JSON.stringify(playerResponse(id, video))};</script></body></html>`
          : '<html><body>This video is unavailable</body></html>';
        res.writeHead(200, { 'content-type': 'text/html' }).end(html);
        return;
      }
      if (req.method === 'GET' && url.pathname === '/api/timedtext') {
        const video = videos[url.searchParams.get('v') ?? ''];
        const lines = video?.tracks[url.searchParams.get('lang') ?? ''];
        if (!video || !lines) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/xml' }).end(timedText(lines, video.format ?? 'srv3'));
        return;
      }
      res.writeHead(404).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
