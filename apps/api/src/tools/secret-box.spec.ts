import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSecretKey } from '../config/config';
import { isSealed, loadOrCreateKeyFile, SecretBox } from './secret-box';

describe(SecretBox.name, () => {
  const key = randomBytes(32);
  const box = new SecretBox(() => key, 'test key');

  it('seals a value so that it opens again and is not readable in the sealed form', () => {
    const sealed = box.seal('Bearer sk-123456');
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain('sk-123456');
    expect(box.seal('Bearer sk-123456')).not.toBe(sealed);
    expect(box.open(sealed)).toBe('Bearer sk-123456');
    expect(box.open(box.seal(''))).toBe('');
  });

  it('reads a value stored before sealing existed as it is', () => {
    expect(box.open('plain-old-secret')).toBe('plain-old-secret');
  });

  it('refuses to open a value sealed under another key, naming where the key comes from', () => {
    const other = new SecretBox(() => randomBytes(32), 'KBQA_SECRET_KEY');
    expect(() => other.open(box.seal('x'))).toThrow(/does not open with the key from KBQA_SECRET_KEY/);
  });

  it('loads the key only on first use', () => {
    const load = jest.fn(() => key);
    const lazy = new SecretBox(load, 'k');
    expect(load).not.toHaveBeenCalled();
    lazy.open(lazy.seal('a'));
    expect(load).toHaveBeenCalledTimes(1);
  });
});

describe(loadOrCreateKeyFile.name, () => {
  const dir = mkdtempSync(join(tmpdir(), 'kbqa-secret-key-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a key file readable by the owner only, and reads the same key back', () => {
    const file = join(dir, 'data', 'secret.key');
    const first = loadOrCreateKeyFile(file);
    expect(first).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(`${first.toString('hex')}\n`);
    expect(loadOrCreateKeyFile(file).equals(first)).toBe(true);
  });
});

describe(parseSecretKey.name, () => {
  it('takes 64 hex digits or base64 of 32 bytes, and refuses anything else', () => {
    const bytes = randomBytes(32);
    expect(parseSecretKey(bytes.toString('hex').toUpperCase())).toBe(bytes.toString('hex'));
    expect(parseSecretKey(bytes.toString('base64'))).toBe(bytes.toString('hex'));
    expect(parseSecretKey(undefined)).toBeUndefined();
    expect(parseSecretKey('')).toBeUndefined();
    expect(() => parseSecretKey('hunter2')).toThrow(/KBQA_SECRET_KEY must be 32 bytes/);
  });
});
