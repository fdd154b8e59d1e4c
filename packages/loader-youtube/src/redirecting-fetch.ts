/**
 * A `fetch` that sends requests for YouTube (`youtube.com` and its subdomains, over https) to
 * `origin` instead, keeping path and query, and everything else to `baseFetch` unchanged. The API
 * uses it with KBQA_YOUTUBE_ORIGIN to point the loader at a mirror or a fake in end-to-end tests.
 */
export function redirectingFetch(origin: string, baseFetch: typeof fetch): typeof fetch {
  const target = new URL(origin);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new Error(`redirectingFetch origin must be http(s): ${origin}`);
  }
  const prefix = `${target.origin}${target.pathname.replace(/\/+$/, '')}`;
  return (input, init) => {
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const url = new URL(href);
    const host = url.hostname.toLowerCase();
    if (url.protocol !== 'https:' || (host !== 'youtube.com' && !host.endsWith('.youtube.com'))) {
      return baseFetch(input, init);
    }
    const rewritten = `${prefix}${url.pathname}${url.search}`;
    return typeof input === 'string' || input instanceof URL
      ? baseFetch(rewritten, init)
      : baseFetch(new Request(rewritten, input), init);
  };
}
