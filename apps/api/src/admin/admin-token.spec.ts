import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ADMIN_TOKEN_PREFIX,
  adminTokenFile,
  generateAdminToken,
  hashAdminToken,
  readAdminTokenHash,
  tokenMatches,
  writeAdminTokenHash,
} from './admin-token';

describe(tokenMatches.name, () => {
  const token = generateAdminToken();
  const stored = hashAdminToken(token);

  it('accepts the token whose sha256 is stored', () => {
    expect(tokenMatches(token, stored)).toBe(true);
  });

  it('refuses a wrong token, an empty one and one that differs in its last character', () => {
    expect(tokenMatches(generateAdminToken(), stored)).toBe(false);
    expect(tokenMatches('', stored)).toBe(false);
    expect(tokenMatches(token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'), stored)).toBe(false);
  });

  it('refuses tokens of another length, and never throws on them', () => {
    expect(tokenMatches(token + 'x', stored)).toBe(false);
    expect(tokenMatches(token.slice(0, 5), stored)).toBe(false);
    expect(tokenMatches('x'.repeat(10_000), stored)).toBe(false);
  });

  it('refuses everything when the stored hash is missing or has the wrong length', () => {
    expect(tokenMatches(token, undefined)).toBe(false);
    expect(tokenMatches(token, stored.subarray(0, 16))).toBe(false);
    expect(tokenMatches(token, Buffer.concat([stored, Buffer.from([0])]))).toBe(false);
    // The dummy digest compared against in that case is not a token's hash either.
    expect(tokenMatches('', Buffer.alloc(0))).toBe(false);
  });
});

describe(generateAdminToken.name, () => {
  it('makes prefixed base64url tokens of 32 random bytes, different each time', () => {
    const a = generateAdminToken();
    expect(a).toMatch(new RegExp(`^${ADMIN_TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`));
    expect(generateAdminToken()).not.toBe(a);
  });
});

describe(writeAdminTokenHash.name, () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'kbqa-admin-token-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stores only the sha256, readable by the owner only', async () => {
    const file = adminTokenFile(join(dir, 'data'));
    const token = generateAdminToken();
    expect(await writeAdminTokenHash(file, token, { replace: false })).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await readAdminTokenHash(file)).toEqual(hashAdminToken(token));
  });

  it('keeps an existing hash unless asked to replace it', async () => {
    const file = adminTokenFile(dir);
    const first = generateAdminToken();
    const second = generateAdminToken();
    await writeAdminTokenHash(file, first, { replace: false });
    expect(await writeAdminTokenHash(file, second, { replace: false })).toBe(false);
    expect(await readAdminTokenHash(file)).toEqual(hashAdminToken(first));
    await writeAdminTokenHash(file, second, { replace: true });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await readAdminTokenHash(file)).toEqual(hashAdminToken(second));
  });

  it('reads a missing file as no hash and refuses a file that holds no sha256', async () => {
    const file = adminTokenFile(dir);
    expect(await readAdminTokenHash(file)).toBeUndefined();
    writeFileSync(file, 'not a hash\n');
    await expect(readAdminTokenHash(file)).rejects.toThrow('does not hold a sha256');
  });
});
