import { createHash } from 'node:crypto';

/** sha256 of a string as hex; chunk identity for "unchanged chunks are not embedded again". */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Identity of what a loader yielded for one source: text (or parts with their links), title,
 * link and metadata. A sync that gets the same hash keeps the source as it is.
 */
export function sourceContentHash(
  documents: Array<{
    content: string;
    title?: string;
    link?: string;
    metadata?: Record<string, unknown>;
    parts?: Array<{ text: string; link: string }>;
  }>,
): string {
  return sha256Hex(
    JSON.stringify(
      documents.map((d) => [d.parts ?? d.content, d.title ?? null, d.link ?? null, d.metadata ?? null]),
    ),
  );
}
