import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config/config';
import { DiskSpace } from './disk-space';

describe(DiskSpace.name, () => {
  let dir: string;
  let disk: DiskSpace;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kbqa-disk-space-'));
    disk = new DiskSpace(loadConfig({ KBQA_DATA_DIR: dir }, dir));
  });
  afterEach(() => {
    jest.useRealTimers();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is ok on a disk with room and no failed write', async () => {
    expect(await disk.health()).toEqual({ state: 'ok' });
  });

  it('reports a write that failed for lack of space for five minutes', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    disk.noteFull();
    jest.advanceTimersByTime(4 * 60_000);
    expect(await disk.health()).toEqual({
      state: 'full',
      detail: expect.stringMatching(
        /^a write failed 240 s ago because the disk of the data directory was full/,
      ),
    });
    jest.advanceTimersByTime(60_000);
    expect(await disk.health()).toEqual({ state: 'ok' });
  });

  it('forgets a failed write once a later one succeeded', async () => {
    disk.noteFull();
    disk.noteWritten();
    expect(await disk.health()).toEqual({ state: 'ok' });
  });

  it('is ok when the data directory cannot be read, rather than failing /health', async () => {
    rmSync(dir, { recursive: true, force: true });
    expect(await disk.health()).toEqual({ state: 'ok' });
  });
});
