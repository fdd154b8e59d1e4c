export { YoutubeLoader, type YoutubeLoaderOptions } from './youtube.loader';
export { redirectingFetch } from './redirecting-fetch';
export { parseVideoId, watchUrl } from './video-url';
export { groupPassages, cleanCaption, type CaptionLine } from './passages';
export * from './fetcher-fetch';
