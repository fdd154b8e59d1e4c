import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A tmpfs of a few megabytes, for the tests that fill a disk: where it is mounted, and how to let it go. */
export interface SmallDisk {
  path: string;
  unmount(): void;
}

/**
 * Mounts a tmpfs of `megabytes` of its own (mounting needs root; CI runs as root). Where the test
 * may not mount one, says that `what` is skipped and returns undefined.
 */
export function mountSmallDisk(prefix: string, megabytes: number, what: string): SmallDisk | undefined {
  const path = mkdtempSync(join(tmpdir(), prefix));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', path], { stdio: 'ignore' });
  } catch {
    rmSync(path, { recursive: true, force: true });
    console.warn(`cannot mount a tmpfs here (needs root): ${what} is SKIPPED. CI runs it as root.`);
    return undefined;
  }
  return {
    path,
    unmount: () => {
      execFileSync('umount', [path]);
      rmSync(path, { recursive: true, force: true });
    },
  };
}
