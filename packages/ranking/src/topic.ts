import type { SearchHit } from '@kbqa/core';
import { queryStems } from './query-terms';

/** How far above its page's best passage a topic page's opening passage ranks (SearchQuery.topic). */
export const TOPIC_LEAD_MARGIN = 0.01;

/** Words of prose a page's opening passage needs; a banner or a lone heading has fewer. */
const LEAD_MIN_WORDS = 5;
/** How many of a page's first passages are looked at for its opening. */
export const LEAD_CANDIDATES = 3;

/**
 * Whether a passage has a sentence's worth of words outside HTML tags, headings, images and
 * badges: a page that opens with a logo banner (`<h1 align="center">Fastify</h1>`) does not
 * open with its definition.
 */
export function hasProse(markdown: string): boolean {
  const text = markdown
    .replace(/<[^>]*>/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join(' ');
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).length >= LEAD_MIN_WORDS;
}

/**
 * Whether a hit's page is the topic's own: its title, the last segment of its link (without
 * extension) or its top heading has exactly the topic's stems ("Reference/Decorators.md" and
 * "Decorators" for "decorators"), not merely among others ("Decorators and Encapsulation").
 */
export function namesTopic(
  hit: Pick<SearchHit, 'title' | 'link' | 'headingPath'>,
  topicStems: Set<string>,
): boolean {
  const lastSegment = (text: string): string =>
    (text.split(/[?#]/)[0] ?? '')
      .replace(/\/+$/, '')
      .split('/')
      .pop()
      ?.replace(/\.\w+$/, '') ?? '';
  for (const name of [lastSegment(hit.title), lastSegment(hit.link), hit.title, hit.headingPath[0] ?? '']) {
    const stems = queryStems(name.replace(/[-_]+/g, ' '));
    if (stems.length === topicStems.size && stems.every((s) => topicStems.has(s))) return true;
  }
  return false;
}
