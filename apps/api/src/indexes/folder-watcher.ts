import { type FSWatcher, watch } from 'node:fs';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { KbqaError } from '@kbqa/core';
import { type FolderDir, folderState } from '@kbqa/loader-folder';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { IndexesService, type WatchedFolderIndex } from './indexes.service';

/**
 * Quiet time after a file-system event before the folder is looked at, so that a save (often a
 * write and a rename) or a copy of many files leads to one look, not one per event.
 */
const SETTLE_MS = 500;

interface Watched {
  id: number;
  path: string;
  /** When it started to be watched, in {@link FolderWatcher}'s count of watches. */
  since: number;
  /**
   * An event watch per folder walked, by path, with the inode it watches: a folder deleted and
   * made again under the same name needs a new one.
   */
  dirs: Map<string, { ino: number; events: FSWatcher }>;
  settle?: NodeJS.Timeout;
  /** What the folder looked like at the last look (undefined: never looked, so the next look syncs). */
  fingerprint?: string;
  looking: boolean;
  again: boolean;
}

/**
 * Keeps `folder` indexes in step with their folders. Each folder is watched through file-system
 * events, with a periodic rescan (KBQA_FOLDER_RESCAN_INTERVAL) as the backstop for what events
 * miss (network file systems, a watch that failed). Events come from one `fs.watch` per folder and
 * sub-folder, set up from the walk of each look (Node's recursive mode on Linux walks the tree
 * synchronously and watches every file, which blocks the event loop on a large tree, and does not
 * follow links). Either only makes it look: the folder's fingerprint (paths, times, sizes, inodes of its readable files) is compared
 * with the last one, and a difference queues a sync of the index as an ordinary task (unless one
 * is pending already), so progress and errors show as tasks; the sync itself reads only the files
 * that changed. A folder that cannot be read (gone, or no longer under KBQA_FOLDER_ROOTS) has its
 * error as fingerprint: the change to that state queues one sync, which fails saying why.
 *
 * Runs in processes that run workers. Folder indexes this process creates or deletes are watched
 * or dropped at once; those of other processes (the command line) are found by a look at the
 * indexes every KBQA_QUEUE_RECONCILE_MS. A folder found that way, or at start-up, is synced once,
 * for what changed while nobody watched.
 */
@Injectable()
export class FolderWatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Folders');
  private readonly watched = new Map<number, Watched>();
  private readonly inflight = new Set<Promise<void>>();
  private rescanTimer: NodeJS.Timeout | undefined;
  private reconcileTimer: NodeJS.Timeout | undefined;
  private reconciling = false;
  private stopped = false;
  /** Watches started so far: a list of indexes read before a watch began cannot end it. */
  private watches = 0;

  constructor(
    private readonly indexes: IndexesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.runWorkers) return;
    this.indexes.setFolderWatch({
      added: (index) => this.track(this.watch(index, false)),
      removed: (id) => this.unwatch(id),
    });
    void this.track(this.reconcile());
    this.reconcileTimer = setInterval(() => void this.track(this.reconcile()), this.config.queueReconcileMs);
    this.reconcileTimer.unref();
    this.rescanTimer = setInterval(() => this.rescan(), this.config.folders.rescanIntervalMs);
    this.rescanTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.indexes.setFolderWatch(undefined);
    clearInterval(this.reconcileTimer);
    clearInterval(this.rescanTimer);
    for (const id of [...this.watched.keys()]) this.unwatch(id);
    await Promise.all([...this.inflight]);
  }

  /** Resolves once every look under way has ended (tests wait on this, not on time). */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.all([...this.inflight]);
  }

  /** Folder indexes being watched (their ids), for tests and logs. */
  watching(): number[] {
    return [...this.watched.keys()];
  }

  /** Watches what the indexes table holds: new folder indexes (synced once), none deleted. */
  private async reconcile(): Promise<void> {
    if (this.reconciling || this.stopped) return;
    this.reconciling = true;
    try {
      const listedAt = this.watches;
      const indexes = await this.indexes.folderIndexes();
      const ids = new Set(indexes.map((i) => i.id));
      for (const w of [...this.watched.values()]) {
        if (!ids.has(w.id) && w.since < listedAt) this.unwatch(w.id);
      }
      for (const index of indexes) await this.watch(index, true);
    } catch (e) {
      this.logger.warn(`could not list the folder indexes: ${message(e)}`);
    } finally {
      this.reconciling = false;
    }
  }

  /**
   * Starts watching a folder. `catchUp`: its first look syncs it (it was not watched until now);
   * otherwise that look only notes how it looks (its first load is about to be queued).
   */
  private async watch(index: WatchedFolderIndex, catchUp: boolean): Promise<void> {
    if (this.stopped || this.watched.has(index.id)) return;
    const w: Watched = {
      id: index.id,
      path: index.path,
      since: this.watches++,
      dirs: new Map(),
      looking: false,
      again: false,
    };
    this.watched.set(index.id, w);
    if (catchUp) return this.look(w);
    // Listening first, then the fingerprint: a change between the two is both seen and evented.
    this.listen(w, (await this.state(w)).dirs);
    const state = await this.state(w);
    w.fingerprint = state.fingerprint;
    this.listen(w, state.dirs);
  }

  private unwatch(id: number): void {
    const w = this.watched.get(id);
    if (!w) return;
    this.watched.delete(id);
    clearTimeout(w.settle);
    for (const dir of w.dirs.values()) dir.events.close();
    w.dirs.clear();
  }

  /**
   * Watches exactly the folders the last walk met: new ones (and ones made again) are added,
   * those gone are closed. A folder that cannot be watched is left to the rescan. True when it
   * added one: what changed in it between the walk and now raised no event.
   */
  private listen(w: Watched, dirs: FolderDir[]): boolean {
    if (this.stopped || this.watched.get(w.id) !== w) return false;
    let added = false;
    const wanted = new Map(dirs.map((d) => [d.path, d.ino]));
    for (const [path, dir] of w.dirs) {
      if (wanted.get(path) === dir.ino) continue;
      dir.events.close();
      w.dirs.delete(path);
    }
    for (const [path, ino] of wanted) {
      if (w.dirs.has(path)) continue;
      try {
        const events = watch(path, () => this.changed(w));
        events.on('error', (e) => {
          this.logger.debug(`watching ${path} stopped (${message(e)})`);
          events.close();
          if (w.dirs.get(path)?.events === events) w.dirs.delete(path);
          this.changed(w);
        });
        w.dirs.set(path, { ino, events });
        added = true;
      } catch (e) {
        this.logger.warn(`cannot watch ${path} (${message(e)}); the rescan looks at it every so often`);
      }
    }
    return added;
  }

  private changed(w: Watched): void {
    if (this.stopped || this.watched.get(w.id) !== w) return;
    clearTimeout(w.settle);
    w.settle = setTimeout(() => void this.track(this.look(w)), SETTLE_MS);
    w.settle.unref();
  }

  /** The backstop: every folder is looked at (which also mends its event watches). */
  private rescan(): void {
    for (const w of this.watched.values()) void this.track(this.look(w));
  }

  /** Queues a sync when the folder no longer looks as it did at the last look. One look at a time. */
  private async look(w: Watched): Promise<void> {
    if (w.looking) {
      w.again = true;
      return;
    }
    w.looking = true;
    try {
      do {
        w.again = false;
        if (this.stopped || this.watched.get(w.id) !== w) return;
        const { fingerprint: now, dirs } = await this.state(w);
        // A folder just watched is walked once more, for what it got before its watch began.
        if (this.listen(w, dirs)) w.again = true;
        if (now === w.fingerprint) continue;
        w.fingerprint = now;
        const taskId = await this.indexes.syncUnlessPending(w.id);
        if (taskId !== undefined)
          this.logger.log(`${w.path} changed: index ${w.id} sync queued as task ${taskId}`);
      } while (w.again);
    } catch (e) {
      if (e instanceof KbqaError && e.code === 'NOT_FOUND') {
        // Deleted by another process (the command line): nothing to keep in step any more.
        this.unwatch(w.id);
        return;
      }
      // The next look tries again.
      w.fingerprint = undefined;
      this.logger.warn(`could not queue a sync of ${w.path}: ${message(e)}`);
    } finally {
      w.looking = false;
    }
  }

  /**
   * The folder's fingerprint and folders, or its error as fingerprint and no folder: a folder
   * that cannot be read is a state too.
   */
  private async state(w: Watched): Promise<{ fingerprint: string; dirs: FolderDir[] }> {
    try {
      return await folderState(w.path, this.config.folders.roots);
    } catch (e) {
      return { fingerprint: `error: ${message(e)}`, dirs: [] };
    }
  }

  /** Keeps a promise until it settles, so shutdown waits for it; it never rejects. */
  private track(p: Promise<void>): Promise<void> {
    const tracked = p.catch((e: unknown) => this.logger.warn(`folder watch: ${message(e)}`));
    this.inflight.add(tracked);
    void tracked.finally(() => this.inflight.delete(tracked));
    return tracked;
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
