import { SOURCE_TYPES, type SourceLoader, type SourceType } from '@kbqa/core';
import { AddressPolicy, SafeFetcher } from '@kbqa/fetcher';
import { DocusaurusLoader } from '@kbqa/loader-docusaurus';
import { GithubLoader } from '@kbqa/loader-github';
import { SitemapLoader } from '@kbqa/loader-sitemap';
import { UrlLoader } from '@kbqa/loader-url';
import { WebsiteCrawlerLoader } from '@kbqa/loader-website-crawler';
import { fetcherFetch, redirectingFetch, YoutubeLoader } from '@kbqa/loader-youtube';
import type { AppConfig } from '../config/config';
import { LoaderRegistry } from './loader-registry';
import { OpenApiLoader } from '@kbqa/loader-openapi';
import { FolderLoader } from '@kbqa/loader-folder';

/** The setting that refusals of private addresses name. */
const ALLOWLIST_SETTING = 'KBQA_ALLOW_PRIVATE_HOSTS';

/** Source types this build wires; start-up fails if one of them has no loader or two. */
export const WIRED_TYPES: readonly SourceType[] = SOURCE_TYPES;

/**
 * Builds every source loader from the configuration, all sharing one safe fetcher (address
 * policy, robots.txt cache and per-host limits are per process, not per loader).
 */
export function createLoaderRegistry(config: AppConfig): LoaderRegistry {
  const fetcher = new SafeFetcher({
    userAgent: config.web.userAgent,
    allowPrivateHosts: config.web.allowPrivateHosts,
    allowlistSetting: ALLOWLIST_SETTING,
  });
  const guard = new AddressPolicy({
    allowPrivateHosts: config.web.allowPrivateHosts,
    allowlistSetting: ALLOWLIST_SETTING,
  });
  // YouTube requests go through the safe fetcher too (address policy, timeouts, size caps).
  const throughFetcher = fetcherFetch(fetcher);
  const youtubeFetch: typeof fetch = config.web.youtubeOrigin
    ? redirectingFetch(config.web.youtubeOrigin, throughFetcher)
    : throughFetcher;
  const loaders: SourceLoader[] = [
    new WebsiteCrawlerLoader({ fetcher }),
    new DocusaurusLoader({ fetcher }),
    new SitemapLoader({ fetcher }),
    new UrlLoader({ fetcher }),
    new OpenApiLoader({ fetcher }),
    new GithubLoader({ guard, baseUrls: config.web.gitBaseUrls }),
    new YoutubeLoader({ fetch: youtubeFetch }),
    new FolderLoader({
      roots: config.folders.roots,
      maxPdfPages: config.uploads.maxPdfPages,
      maxFileBytes: config.uploads.maxFileBytes,
    }),
  ];
  return new LoaderRegistry(loaders, WIRED_TYPES, () => fetcher.close(), guard);
}
