import { describe, expect, it } from '@jest/globals';
import { parseRobots, productToken } from './robots.rules';

const ORIGIN = 'https://docs.example';
const u = (path: string): URL => new URL(path, ORIGIN);

const ROBOTS = `
# comments are ignored
User-agent: *
Disallow: /private
Allow: /private/public
Disallow: /*.pdf$
Disallow: /search*q=
Disallow: /tie
Allow: /tie
Crawl-delay: 2

User-agent: KBQA
user-agent: otherbot
Disallow: /no-kbqa
Allow: /no-kbqa/yes
Crawl-delay: 0.5

Sitemap: https://docs.example/sitemap.xml
`;

describe('parseRobots', () => {
  const star = parseRobots(ORIGIN, ROBOTS, 'somebot/2.0');
  const ours = parseRobots(ORIGIN, ROBOTS, 'kbqa/0.1 (+https://github.com/kbqa)');

  it('takes the product token of a user agent, lower-cased', () => {
    expect(productToken('kbqa/0.1 (+https://github.com/kbqa)')).toBe('kbqa');
    expect(productToken('My-Bot')).toBe('my-bot');
  });

  it('lets the longest matching rule win', () => {
    expect(star.isAllowed(u('/private/page'))).toBe(false);
    expect(star.isAllowed(u('/private/public/page'))).toBe(true);
    expect(star.isAllowed(u('/open'))).toBe(true);
  });

  it('lets Allow win a tie with Disallow', () => {
    expect(star.isAllowed(u('/tie/x'))).toBe(true);
  });

  it('supports * and $ wildcards', () => {
    expect(star.isAllowed(u('/docs/manual.pdf'))).toBe(false);
    expect(star.isAllowed(u('/docs/manual.pdf?download=1'))).toBe(true);
    expect(star.isAllowed(u('/docs/manual.pdfx'))).toBe(true);
    expect(star.isAllowed(u('/search?page=2&q=x'))).toBe(false);
    expect(star.isAllowed(u('/search?page=2'))).toBe(true);
  });

  it('uses the group of our product token case-insensitively and ignores the * group then', () => {
    expect(ours.isAllowed(u('/no-kbqa/page'))).toBe(false);
    expect(ours.isAllowed(u('/no-kbqa/yes'))).toBe(true);
    expect(ours.isAllowed(u('/private/page'))).toBe(true);
    expect(star.isAllowed(u('/no-kbqa/page'))).toBe(true);
  });

  it('reads Crawl-delay of the matching group', () => {
    expect(ours.crawlDelay()).toBe(0.5);
    expect(star.crawlDelay()).toBe(2);
    expect(parseRobots(ORIGIN, 'User-agent: *\nDisallow:\n', 'kbqa').crawlDelay()).toBeUndefined();
  });

  it('lists sitemaps', () => {
    expect(star.sitemaps()).toEqual(['https://docs.example/sitemap.xml']);
  });

  it('allows everything for an empty file or an empty Disallow', () => {
    expect(parseRobots(ORIGIN, '', 'kbqa').isAllowed(u('/any'))).toBe(true);
    expect(parseRobots(ORIGIN, 'User-agent: *\nDisallow:\n', 'kbqa').isAllowed(u('/any'))).toBe(true);
  });
});
