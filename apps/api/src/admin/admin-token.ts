import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Generated operator tokens start with this, so a leaked one is recognisable in logs and scans. */
export const ADMIN_TOKEN_PREFIX = 'kbqa_admin_';

/** Where the sha256 of a generated operator token is kept: `<dataDir>/admin-token.sha256`. */
export function adminTokenFile(dataDir: string): string {
  return join(dataDir, 'admin-token.sha256');
}

/** A new operator token: 32 random bytes, base64url, with {@link ADMIN_TOKEN_PREFIX}. */
export function generateAdminToken(): string {
  return ADMIN_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** sha256 of a token: the only form in which a generated token is stored. */
export function hashAdminToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Compared against when no valid hash is stored, so that case takes the same path as a wrong token. */
const NO_HASH = Buffer.alloc(32);

/**
 * Whether `presented` is the token whose sha256 is `expected`, in constant time: both sides are
 * 32-byte digests whatever the presented length, and a missing or malformed stored hash is
 * compared against a dummy digest before the answer is no.
 */
export function tokenMatches(presented: string, expected: Buffer | undefined): boolean {
  const digest = hashAdminToken(presented);
  const valid = expected !== undefined && expected.length === digest.length;
  const equal = timingSafeEqual(digest, valid ? expected : NO_HASH);
  return valid && equal;
}

/**
 * Reads the stored hash; undefined when the file is missing. Throws when it exists but holds
 * something other than a hex sha256 (a hand-edited or truncated file), so callers can say so.
 */
export async function readAdminTokenHash(file: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/i.test(hex)) {
    throw new Error(
      `${file} does not hold a sha256 (64 hex digits); the \`admin token\` command makes a new one`,
    );
  }
  return Buffer.from(hex, 'hex');
}

/**
 * Stores the hash of `token`, readable by the owner only (0600). `replace: false` creates the
 * file only if none exists and returns false otherwise (two processes starting on one data
 * directory keep the first one's token); `replace: true` swaps it in with a rename, so a running
 * service never reads half a file.
 */
export async function writeAdminTokenHash(
  file: string,
  token: string,
  options: { replace: boolean },
): Promise<boolean> {
  await mkdir(dirname(file), { recursive: true });
  const content = hashAdminToken(token).toString('hex') + '\n';
  if (!options.replace) {
    try {
      await writeFile(file, content, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
    await chmod(file, 0o600); // the mode above is filtered through the umask
    return true;
  }
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, content, { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, file);
  return true;
}
