import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pullLocalModel } from '../src';
import { tinyGgufBytes } from '../src/testing';

/** A model host on 127.0.0.1 that honours range requests, unless told not to. */
function startHost(body: Buffer, options: { ranges: boolean }) {
  const seen: Array<string | undefined> = [];
  const server: Server = createServer((req, res) => {
    seen.push(req.headers.range);
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (range && options.ranges) {
      const start = Number(range[1]);
      if (start >= body.length) {
        res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
        return;
      }
      res.writeHead(206, {
        'content-length': body.length - start,
        'content-range': `bytes ${start}-${body.length - 1}/${body.length}`,
      });
      res.end(body.subarray(start));
      return;
    }
    res.writeHead(200, { 'content-length': body.length }).end(body);
  });
  return new Promise<{ url: string; seen: typeof seen; close(): Promise<void> }>((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/org/repo/resolve/main/m.gguf`,
        seen,
        close: () => new Promise<void>((r) => server.close(() => r())),
      }),
    );
  });
}

describe(pullLocalModel.name, () => {
  const model = tinyGgufBytes();
  const sha256 = createHash('sha256').update(model).digest('hex');
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'kbqa-pull-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('downloads with progress, checks the sha256 and the GGUF header, then installs', async () => {
    const host = await startHost(model, { ranges: true });
    const target = path.join(dir, 'llm', 'tiny.gguf');
    const progress: Array<[number, number]> = [];
    try {
      const pulled = await pullLocalModel({
        url: host.url,
        target,
        sha256,
        onProgress: (d, t) => progress.push([d, t]),
      });
      expect(pulled).toMatchObject({ sha256, resumedFrom: 0, info: { architecture: 'llama', path: target } });
    } finally {
      await host.close();
    }
    expect(readFileSync(target).equals(model)).toBe(true);
    expect(existsSync(`${target}.partial`)).toBe(false);
    expect(progress.at(-1)).toEqual([model.length, model.length]);
  });

  it('resumes an interrupted download from the bytes it already has', async () => {
    const host = await startHost(model, { ranges: true });
    const target = path.join(dir, 'tiny.gguf');
    writeFileSync(`${target}.partial`, model.subarray(0, 100_000));
    try {
      const pulled = await pullLocalModel({ url: host.url, target, sha256 });
      expect(pulled.resumedFrom).toBe(100_000);
    } finally {
      await host.close();
    }
    expect(host.seen).toEqual(['bytes=100000-']);
    expect(readFileSync(target).equals(model)).toBe(true);
  });

  it('starts again when the server ignores the range', async () => {
    const host = await startHost(model, { ranges: false });
    const target = path.join(dir, 'tiny.gguf');
    writeFileSync(`${target}.partial`, Buffer.from('stale bytes of another file'));
    try {
      expect((await pullLocalModel({ url: host.url, target, sha256 })).resumedFrom).toBe(0);
    } finally {
      await host.close();
    }
    expect(readFileSync(target).equals(model)).toBe(true);
  });

  it('deletes a download whose sha256 does not match, installing nothing', async () => {
    const host = await startHost(model, { ranges: true });
    const target = path.join(dir, 'tiny.gguf');
    try {
      await expect(pullLocalModel({ url: host.url, target, sha256: 'a'.repeat(64) })).rejects.toMatchObject({
        code: 'MODEL_UNAVAILABLE',
        message: expect.stringContaining(`has sha256 ${sha256}, not the expected ${'a'.repeat(64)}`),
      });
    } finally {
      await host.close();
    }
    expect(existsSync(target)).toBe(false);
    expect(existsSync(`${target}.partial`)).toBe(false);
  });

  it('deletes a download that is not a GGUF file (an HTML error page)', async () => {
    const host = await startHost(Buffer.from('<!doctype html><p>Sign in to download</p>'), { ranges: true });
    const target = path.join(dir, 'tiny.gguf');
    try {
      await expect(pullLocalModel({ url: host.url, target })).rejects.toMatchObject({ problem: 'not-gguf' });
    } finally {
      await host.close();
    }
    expect(existsSync(`${target}.partial`)).toBe(false);
  });

  it('says which URL failed when the host answers 404', async () => {
    const server = createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x.gguf`;
    try {
      await expect(pullLocalModel({ url, target: path.join(dir, 'x.gguf') })).rejects.toMatchObject({
        code: 'MODEL_UNAVAILABLE',
        message: `Cannot download ${url}: HTTP 404`,
      });
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
