import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppConfig } from '../config/config';
import { FolderWatcher } from './folder-watcher';
import type { IndexesService } from './indexes.service';

/** The index service as the watcher uses it: one folder index, and every sync it queues. */
class FakeIndexes {
  readonly queued: number[] = [];
  private waiters: Array<() => void> = [];
  constructor(private readonly path: string) {}
  setFolderWatch(): void {}
  folderIndexes() {
    return Promise.resolve([{ id: 7, path: this.path }]);
  }
  syncUnlessPending(id: number) {
    this.queued.push(id);
    for (const w of this.waiters.splice(0)) w();
    return Promise.resolve(this.queued.length);
  }
  /** Resolves once `n` syncs have been queued in all. */
  async syncs(n: number): Promise<void> {
    while (this.queued.length < n) await new Promise<void>((r) => this.waiters.push(r));
  }
}

describe(FolderWatcher.name, () => {
  let base: string;
  let root: string;
  let docs: string;
  let indexes: FakeIndexes;
  let watcher: FolderWatcher;

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'kbqa-watcher-')));
    root = join(base, 'root');
    docs = join(root, 'docs');
    mkdirSync(docs, { recursive: true });
    writeFileSync(join(docs, 'a.md'), '# A');
    indexes = new FakeIndexes(docs);
    const config = {
      runWorkers: true,
      queueReconcileMs: 3_600_000,
      folders: { roots: [root], rescanIntervalMs: 3_600_000 },
    } as AppConfig;
    watcher = new FolderWatcher(indexes as unknown as IndexesService, config);
  });
  afterEach(async () => {
    await watcher.onApplicationShutdown();
    rmSync(base, { recursive: true, force: true });
  });

  it('syncs a folder found at start once, then only when what a sync reads changed', async () => {
    watcher.onApplicationBootstrap();
    await indexes.syncs(1);
    await watcher.idle();
    // Not a readable file: no sync for it. The edit after it is what the next sync is for.
    writeFileSync(join(docs, 'logo.png'), 'png');
    writeFileSync(join(docs, 'a.md'), '# A, edited');
    await indexes.syncs(2);
    await watcher.idle();
    expect(indexes.queued).toEqual([7, 7]);
  });

  it('queues one sync when the folder goes (which fails saying why), and one when it is back', async () => {
    watcher.onApplicationBootstrap();
    await indexes.syncs(1);
    await watcher.idle();
    renameSync(docs, join(root, 'away'));
    await indexes.syncs(2);
    await watcher.idle();
    renameSync(join(root, 'away'), docs);
    // Its watch went with it: the rescan is what finds it back.
    (watcher as unknown as { rescan(): void }).rescan();
    await indexes.syncs(3);
    await watcher.idle();
    writeFileSync(join(docs, 'b.md'), '# B');
    await indexes.syncs(4);
    await watcher.idle();
    expect(indexes.queued).toEqual([7, 7, 7, 7]);
  });
});
