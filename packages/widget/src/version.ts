/**
 * The documentation version the widget asks about (`data-version`): an explicit name wins; `auto`
 * reads the page it is embedded in: Docusaurus' `docusaurus_version` meta tag, Read the Docs'
 * `readthedocs-version-slug` meta tag, else `data-version-pattern` (a regular expression whose
 * first group is the version) against the page's path. No attribute, or nothing found: no version,
 * and the server answers from the site's default version.
 */
export function pageVersion(
  setting: string | undefined,
  pattern: string | undefined,
  meta: (name: string) => string | undefined,
  pathname: string,
): string | undefined {
  const value = setting?.trim();
  if (!value) return undefined;
  if (value.toLowerCase() !== 'auto') return value;
  const tagged = meta('docusaurus_version') ?? meta('readthedocs-version-slug');
  if (tagged?.trim()) return tagged.trim();
  if (!pattern) return undefined;
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch {
    return undefined;
  }
  const m = regex.exec(pathname);
  const found = (m?.[1] ?? m?.[0])?.replace(/^\/+|\/+$/g, '');
  return found || undefined;
}

/** A meta tag's content in `doc`. */
export function metaContent(doc: Document, name: string): string | undefined {
  const el = doc.querySelector(`meta[name="${name}"]`);
  return el?.getAttribute('content') ?? undefined;
}
