import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { KbqaError } from '@kbqa/core';

/** Marks a sealed value: version 1 is AES-256-GCM, 12-byte IV, 16-byte tag, all base64. */
const SEALED = /^enc:v1:([A-Za-z0-9+/=]+):([A-Za-z0-9+/=]+):([A-Za-z0-9+/=]*)$/;
const KEY_BYTES = 32;

/** The key file's name in the data directory, when KBQA_SECRET_KEY is unset. */
export function secretKeyFile(dataDir: string): string {
  return join(dataDir, 'secret.key');
}

/**
 * The key in `file`, created (32 random bytes, hex, mode 0600) when there is none. Two processes
 * starting on one data directory agree: the file appears whole through a hard link, which fails
 * if another process made it first, and then that one's key is read.
 */
export function loadOrCreateKeyFile(file: string): Buffer {
  try {
    return keyFromFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, randomBytes(KEY_BYTES).toString('hex') + '\n', { mode: 0o600 });
  chmodSync(temp, 0o600); // the mode above is filtered through the umask
  try {
    linkSync(temp, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    unlinkSync(temp);
  }
  return keyFromFile(file);
}

function keyFromFile(file: string): Buffer {
  const text = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(text)) {
    throw new KbqaError('CONFIG_INVALID', `${file} does not hold a key (64 hex digits)`);
  }
  return Buffer.from(text, 'hex');
}

/**
 * Seals the secrets kbqa stores (tool and tool-source header values) with AES-256-GCM, so a copy
 * of the database file alone does not give them away. Values stored before sealing existed are
 * plain text and read as they are; they are sealed when next saved.
 */
export class SecretBox {
  private key: Buffer | undefined;

  /** `key` is read on first use: a process that never touches a secret creates no key file. */
  constructor(
    private readonly loadKey: () => Buffer,
    /** Where the key comes from, for the message when a value does not open. */
    private readonly keyOrigin: string,
  ) {}

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.currentKey(), iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `enc:v1:${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${data.toString('base64')}`;
  }

  /** The plain value; a value that is not sealed is returned as it is. */
  open(stored: string): string {
    const m = SEALED.exec(stored);
    if (!m) return stored;
    const [, iv = '', tag = '', data = ''] = m;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.currentKey(), Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    } catch (e) {
      if (e instanceof KbqaError) throw e;
      throw new KbqaError(
        'CONFIG_INVALID',
        `a stored secret does not open with the key from ${this.keyOrigin}: it was sealed under another key`,
      );
    }
  }

  private currentKey(): Buffer {
    this.key ??= this.loadKey();
    return this.key;
  }
}

/** Whether a stored value is sealed (for tests and checks; never needed to read one). */
export function isSealed(stored: string): boolean {
  return SEALED.test(stored);
}
