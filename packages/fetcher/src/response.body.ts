import type { IncomingMessage } from 'node:http';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import * as zlib from 'node:zlib';

/**
 * The decoder for a Content-Encoding, `null` for identity, `undefined` when unsupported.
 * Decompressed bytes are what the body cap counts.
 */
export function createDecoder(contentEncoding: string | undefined): Transform | null | undefined {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  switch (encoding) {
    case '':
    case 'identity':
      return null;
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'br':
      return zlib.createBrotliDecompress();
    case 'deflate':
      return new DeflateDecoder();
    default:
      return undefined;
  }
}

/**
 * `deflate` is sent both zlib-wrapped (as the RFC says) and raw (as some servers do); the first
 * byte tells them apart, as browsers do.
 */
class DeflateDecoder extends Transform {
  private inner: zlib.Inflate | zlib.InflateRaw | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.inner) {
      const first = chunk[0] ?? 0;
      this.inner = (first & 0x0f) === 0x08 ? zlib.createInflate() : zlib.createInflateRaw();
      this.inner.on('data', (data: Buffer) => this.push(data));
      this.inner.on('error', (error) => this.destroy(error));
    }
    this.inner.write(chunk, () => callback());
  }

  override _flush(callback: TransformCallback): void {
    if (!this.inner) {
      callback();
      return;
    }
    this.inner.once('end', () => callback());
    this.inner.end();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.inner?.destroy();
    callback(error);
  }
}

export type BodyOutcome =
  | { kind: 'ok'; body: Buffer; truncated: boolean }
  | { kind: 'too-large' }
  | { kind: 'closed' }
  | { kind: 'decode-error'; error: Error }
  | { kind: 'unsupported-encoding'; encoding: string };

/**
 * Reads a response body, counting bytes after decompression, and stops reading (destroying
 * the response, hence the socket) as soon as the cap is passed, so a compression bomb is never
 * inflated beyond the cap.
 */
export function readBody(
  res: IncomingMessage,
  maxBytes: number,
  truncate: boolean,
  onDone: (outcome: BodyOutcome) => void,
): void {
  const encodingHeader = res.headers['content-encoding'];
  const decoder = createDecoder(encodingHeader);
  let done = false;
  const finish = (outcome: BodyOutcome): void => {
    if (done) return;
    done = true;
    if (outcome.kind !== 'ok' || outcome.truncated) {
      decoder?.destroy();
      res.destroy();
    }
    onDone(outcome);
  };
  if (decoder === undefined) {
    finish({ kind: 'unsupported-encoding', encoding: encodingHeader ?? '' });
    return;
  }
  const declared = Number(res.headers['content-length']);
  if (!decoder && !truncate && Number.isFinite(declared) && declared > maxBytes) {
    finish({ kind: 'too-large' });
    return;
  }

  const chunks: Buffer[] = [];
  let total = 0;
  const source: Readable = decoder ? res.pipe(decoder) : res;
  source.on('data', (chunk: Buffer) => {
    if (done) return;
    if (total + chunk.length > maxBytes) {
      if (truncate) {
        chunks.push(chunk.subarray(0, maxBytes - total));
        finish({ kind: 'ok', body: Buffer.concat(chunks), truncated: true });
      } else {
        finish({ kind: 'too-large' });
      }
      return;
    }
    total += chunk.length;
    chunks.push(chunk);
  });
  source.on('end', () => finish({ kind: 'ok', body: Buffer.concat(chunks), truncated: false }));
  if (decoder) decoder.on('error', (error) => finish({ kind: 'decode-error', error }));
  res.on('error', () => finish({ kind: 'closed' }));
  res.on('close', () => {
    if (!res.complete) finish({ kind: 'closed' });
  });
}
