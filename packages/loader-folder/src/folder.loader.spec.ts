import {
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { KnownSource, LoadContext, LoadedDocument, SkippedItem } from '@kbqa/core';
import { collect, describeLoaderContract } from '@kbqa/core/testing';
import { FolderLoader } from './folder.loader';
import { resolveFolder } from './folder-path';
import { folderState, walkFolder } from './walk';

function scratch(): { base: string; root: string; outside: string } {
  // Real paths: on some systems tmpdir() is itself behind a link.
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'kbqa-folder-')));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'docs', 'guides'), { recursive: true });
  mkdirSync(outside);
  return { base, root, outside };
}

const url = (path: string) => pathToFileURL(path).href;

describeLoaderContract('FolderLoader', {
  setup() {
    const { base, root, outside } = scratch();
    const docs = join(root, 'docs');
    writeFileSync(join(docs, 'intro.md'), '# Intro\n\nWelcome to the handbook.');
    writeFileSync(join(docs, 'guides', 'setup.txt'), 'Install it, then run it.');
    writeFileSync(join(docs, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    writeFileSync(join(outside, 'secret.md'), '# Secret');
    symlinkSync(join(outside, 'secret.md'), join(docs, 'leak.md'));
    return Promise.resolve({
      loader: new FolderLoader({ roots: [root] }),
      request: { url: docs },
      skipping: { url: docs },
      teardown: () => Promise.resolve(rmSync(base, { recursive: true, force: true })),
    });
  },
  invalidRequest: { url: 'relative/path' },
});

describe(FolderLoader.name, () => {
  let base: string;
  let root: string;
  let outside: string;
  let docs: string;
  beforeEach(() => {
    ({ base, root, outside } = scratch());
    docs = join(root, 'docs');
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('yields one source per readable file, by file URL, titled by heading or path', async () => {
    writeFileSync(join(docs, 'intro.md'), '# Intro\n\nWelcome.');
    writeFileSync(join(docs, 'guides', 'setup.txt'), 'Install it.');
    writeFileSync(join(docs, '.hidden.md'), '# Hidden');
    mkdirSync(join(docs, 'node_modules'));
    writeFileSync(join(docs, 'node_modules', 'dep.md'), '# Dep');
    const { documents, skipped } = await collect(new FolderLoader({ roots: [root] }), { url: docs });
    expect(documents.map((d) => [d.source, d.link, d.title])).toEqual([
      [url(join(docs, 'guides', 'setup.txt')), url(join(docs, 'guides', 'setup.txt')), 'guides/setup.txt'],
      [url(join(docs, 'intro.md')), url(join(docs, 'intro.md')), 'Intro'],
    ]);
    expect(documents[0]!.version?.file).toMatchObject({ size: 'Install it.'.length });
    expect(skipped).toEqual([]);
  });

  it('skips files of other types, too large ones and links out of the roots, saying why', async () => {
    writeFileSync(join(docs, 'logo.png'), 'png');
    writeFileSync(join(docs, 'big.md'), 'x'.repeat(2000));
    writeFileSync(join(outside, 'secret.md'), '# Secret');
    symlinkSync(join(outside, 'secret.md'), join(docs, 'leak.md'));
    symlinkSync(outside, join(docs, 'elsewhere'));
    symlinkSync(join(docs, 'missing.md'), join(docs, 'broken.md'));
    writeFileSync(join(root, 'shared.md'), '# Shared\n\nInside the root, outside the folder.');
    symlinkSync(join(root, 'shared.md'), join(docs, 'shared.md'));
    const { documents, skipped } = await collect(new FolderLoader({ roots: [root], maxFileBytes: 1000 }), {
      url: docs,
    });
    expect(documents.map((d) => d.source)).toEqual([url(join(docs, 'shared.md'))]);
    const by = new Map(skipped.map((s) => [s.url, s]));
    expect(by.get(url(join(docs, 'logo.png')))?.code).toBe('UNSUPPORTED');
    expect(by.get(url(join(docs, 'big.md')))?.code).toBe('TOO_LARGE');
    expect(by.get(url(join(docs, 'broken.md')))?.code).toBe('GONE');
    for (const link of ['leak.md', 'elsewhere']) {
      expect(by.get(url(join(docs, link)))).toMatchObject({
        code: 'OFF_SITE',
        reason: expect.stringContaining('outside the folders KBQA_FOLDER_ROOTS allows'),
      });
    }
    expect(skipped).toHaveLength(5);
  });

  it('reports a file whose time, size and inode are the known ones unchanged, without a document', async () => {
    writeFileSync(join(docs, 'a.md'), '# A');
    writeFileSync(join(docs, 'b.md'), '# B');
    const loader = new FolderLoader({ roots: [root] });
    const first = await collect(loader, { url: docs });
    const known = new Map(first.documents.map((d) => [d.source, { source: d.source, version: d.version! }]));
    utimesSync(join(docs, 'b.md'), new Date(), new Date(Date.now() + 5000));
    const unchanged: string[] = [];
    const documents: LoadedDocument[] = [];
    const context: LoadContext = {
      signal: new AbortController().signal,
      progress: () => undefined,
      known: (u): KnownSource | undefined => known.get(u),
      unchanged: (s) => unchanged.push(s),
    };
    for await (const d of loader.load({ url: docs }, context)) documents.push(d);
    expect(unchanged).toEqual([url(join(docs, 'a.md'))]);
    expect(documents.map((d) => d.source)).toEqual([url(join(docs, 'b.md'))]);
  });

  it('refuses a folder outside the roots, reached through a link out of them, or with no roots', () => {
    symlinkSync(outside, join(root, 'out'));
    const refusal = (path: string, roots = [root]) => {
      try {
        resolveFolder(path, roots);
      } catch (e) {
        return e as { code: string; message: string };
      }
      throw new Error(`${path} was accepted`);
    };
    expect(refusal(outside)).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('outside'),
    });
    expect(refusal(join(root, 'out')).message).toContain(`resolves to ${outside}`);
    expect(refusal(join(root, '..', 'outside')).message).toContain('outside');
    expect(refusal(join(root, 'nope')).message).toContain('no such folder');
    expect(refusal('docs').message).toContain('absolute path');
    expect(refusal(docs, []).message).toContain('KBQA_FOLDER_ROOTS is not set');
    expect(resolveFolder(`${docs}/`, [root])).toEqual({ path: docs, real: docs });
    expect(() => new FolderLoader({ roots: [root] }).validate({ url: outside })).toThrow('outside');
  });

  it('fails a load whose folder was replaced by a link out of the roots', async () => {
    const moved = join(root, 'moved');
    mkdirSync(moved);
    const loader = new FolderLoader({ roots: [root] });
    loader.validate({ url: moved });
    rmSync(moved, { recursive: true });
    symlinkSync(outside, moved);
    await expect(collect(loader, { url: moved })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('walks a folder reached twice through links once', async () => {
    writeFileSync(join(docs, 'guides', 'a.md'), '# A');
    symlinkSync(join(docs, 'guides'), join(docs, 'again'));
    symlinkSync(docs, join(docs, 'guides', 'loop'));
    const walk = await walkFolder(docs, [root]);
    expect(walk.files.map((f) => f.rel)).toEqual(['again/a.md']);
    expect(walk.dirs.map((d) => d.path)).toEqual([docs, join(docs, 'again')]);
  });

  it('changes its fingerprint with an edit, a new file, a rename and a delete, not otherwise', async () => {
    writeFileSync(join(docs, 'a.md'), '# A');
    const fp = async () => (await folderState(docs, [root])).fingerprint;
    let before = await fp();
    writeFileSync(join(docs, 'notes.png'), 'not read');
    expect(await fp()).toBe(before);
    const steps: Array<() => void> = [
      () => writeFileSync(join(docs, 'a.md'), '# A, longer'),
      () => writeFileSync(join(docs, 'b.md'), '# B'),
      () => renameSync(join(docs, 'b.md'), join(docs, 'c.md')),
      () => rmSync(join(docs, 'c.md')),
    ];
    for (const step of steps) {
      step();
      const now = await fp();
      expect(now).not.toBe(before);
      before = now;
    }
  });

  it('reports skipped items through the context', async () => {
    writeFileSync(join(docs, 'logo.png'), 'png');
    const items: SkippedItem[] = [];
    const context: LoadContext = {
      signal: new AbortController().signal,
      progress: () => undefined,
      skipped: (s) => items.push(s),
    };
    for await (const d of new FolderLoader({ roots: [root] }).load({ url: docs }, context)) void d;
    expect(items.map((s) => s.code)).toEqual(['UNSUPPORTED']);
  });
});
