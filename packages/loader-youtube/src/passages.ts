import type { DocumentPart } from '@kbqa/core';

/** One caption line with its start time in seconds. */
export interface CaptionLine {
  text: string;
  start: number;
}

const NAMED: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', hellip: '…', mdash: '—', ndash: '–',
  lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«', raquo: '»', eacute: 'é', egrave: 'è',
}; // prettier-ignore

function decodeOnce(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, body: string) => {
    if (body[0] === '#') {
      const code =
        body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
    }
    return NAMED[body.toLowerCase()] ?? match;
  });
}

/**
 * Caption text as a reader sees it. YouTube's timed text is often encoded twice (`&amp;#39;`)
 * and youtube-transcript decodes once, so entities are decoded until none are left (at most
 * twice more); formatting tags and line breaks inside a caption go.
 */
export function cleanCaption(text: string): string {
  let decoded = decodeOnce(text);
  if (/&(#x[0-9a-f]+|#\d+|[a-z]+);/i.test(decoded)) decoded = decodeOnce(decoded);
  return decoded
    .replace(/<\/?(font|b|i|u|c)(\s[^>]*)?>/gi, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export function timestampLink(watchUrl: string, seconds: number): string {
  return `${watchUrl}&t=${Math.max(0, Math.floor(seconds))}s`;
}

/**
 * Groups caption lines into passages of about `targetChars`: a passage ends at the first
 * sentence end past three quarters of the target, and at the latest once it reaches the target.
 * Each passage links to the moment of its first line.
 */
export function groupPassages(
  lines: readonly CaptionLine[],
  watchUrl: string,
  targetChars: number,
): DocumentPart[] {
  const parts: DocumentPart[] = [];
  let texts: string[] = [];
  let length = 0;
  let start = 0;
  const flush = (): void => {
    if (texts.length === 0) return;
    parts.push({ text: texts.join(' '), link: timestampLink(watchUrl, start) });
    texts = [];
    length = 0;
  };
  for (const line of lines) {
    if (line.text === '') continue;
    if (texts.length === 0) start = line.start;
    texts.push(line.text);
    length += line.text.length + 1;
    if (length >= targetChars || (length >= targetChars * 0.75 && /[.!?…。]["')\]]?$/.test(line.text)))
      flush();
  }
  flush();
  return parts;
}
