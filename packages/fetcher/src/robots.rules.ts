import robotsParser from 'robots-parser';

/**
 * The robots.txt verdict for one origin (RFC 9309): longest match wins, `Allow` wins ties,
 * `*` and `$` wildcards, the group of our product token (case-insensitive) or else `*`.
 */
export interface RobotsRules {
  isAllowed(url: URL): boolean;
  /** Crawl-delay in seconds for our user agent, when the file names one. */
  crawlDelay(): number | undefined;
  /** Sitemap URLs the file lists. */
  sitemaps(): string[];
}

/** Product token of a User-Agent header: `kbqa/0.1 (+https://…)` → `kbqa`. */
export function productToken(userAgent: string): string {
  const token = /^[A-Za-z_-]+/.exec(userAgent.trim());
  return (token?.[0] ?? '*').toLowerCase();
}

export const ALLOW_ALL: RobotsRules = {
  isAllowed: () => true,
  crawlDelay: () => undefined,
  sitemaps: () => [],
};

export const DISALLOW_ALL: RobotsRules = {
  isAllowed: (url) => url.pathname === '/robots.txt',
  crawlDelay: () => undefined,
  sitemaps: () => [],
};

export function parseRobots(origin: string, body: string, userAgent: string): RobotsRules {
  const robotsUrl = new URL('/robots.txt', origin).href;
  const robots = robotsParser(robotsUrl, body);
  const token = productToken(userAgent);
  return {
    isAllowed(url) {
      // The parser answers undefined for another origin; that is a caller bug, so refuse.
      return robots.isAllowed(url.href, token) ?? false;
    },
    crawlDelay() {
      const delay = robots.getCrawlDelay(token);
      return delay !== undefined && Number.isFinite(delay) && delay >= 0 ? delay : undefined;
    },
    sitemaps() {
      return robots.getSitemaps();
    },
  };
}
