import { createHash } from 'node:crypto';

/** sha256 of a string as hex; chunk identity for "unchanged chunks are not embedded again". */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
