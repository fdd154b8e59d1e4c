import { describe, expect, it } from '@jest/globals';
import { looksLikeSitemap, parseSitemap } from './sitemap.reader';

describe(parseSitemap.name, () => {
  it('reads <loc> values of url sets and indexes, decoding entities and CDATA', () => {
    const urlset =
      '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc> https://a.test/x?a=1&amp;b=2 </loc></url><url><loc><![CDATA[https://a.test/y]]></loc></url></urlset>';
    expect(parseSitemap(urlset)).toEqual({
      index: false,
      locations: ['https://a.test/x?a=1&b=2', 'https://a.test/y'],
    });
    const index = '<sitemapindex><sitemap><loc>https://a.test/s1.xml</loc></sitemap></sitemapindex>';
    expect(parseSitemap(index)).toEqual({ index: true, locations: ['https://a.test/s1.xml'] });
  });

  it('tells sitemaps from HTML app shells', () => {
    expect(looksLikeSitemap('<?xml version="1.0"?>\n<urlset>')).toBe(true);
    expect(looksLikeSitemap('<!doctype html><html><body></body></html>')).toBe(false);
  });
});
