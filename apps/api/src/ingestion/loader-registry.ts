import { KbqaError, SOURCE_TYPES, type SourceLoader, type SourceType } from '@kbqa/core';

/** Types whose URL the safe fetcher reads directly (git and video URLs have their own rules). */
const FETCHED_TYPES: ReadonlySet<SourceType> = new Set([
  'website-crawler',
  'docusaurus',
  'sitemap',
  'url',
  'openapi',
]);

/**
 * The one place loaders are registered, keyed by source type. Construction fails when a type
 * has no loader or two, so a wiring mistake stops start-up instead of failing a user's task.
 */
export class LoaderRegistry {
  private readonly byType = new Map<SourceType, SourceLoader>();

  /**
   * @param close releases what the loaders share (the fetcher's kept-alive connections).
   */
  constructor(
    loaders: SourceLoader[],
    required: readonly SourceType[] = SOURCE_TYPES,
    private readonly close: () => void = () => undefined,
    private readonly guard?: { assertUrlShape(url: URL): void },
  ) {
    for (const loader of loaders) {
      if (this.byType.has(loader.type)) throw new Error(`two loaders registered for type "${loader.type}"`);
      this.byType.set(loader.type, loader);
    }
    const missing = required.filter((t) => !this.byType.has(t));
    if (missing.length > 0) throw new Error(`no loader registered for type(s): ${missing.join(', ')}`);
  }

  shutdown(): void {
    this.close();
  }

  /**
   * Refuses at request time what the fetcher would refuse without DNS (a literal private
   * address, a local name, credentials), so such a URL is a 400 and not a task that fails.
   */
  assertFetchable(type: SourceType, url: string): void {
    if (!this.guard || !FETCHED_TYPES.has(type)) return;
    try {
      this.guard.assertUrlShape(new URL(url));
    } catch (e) {
      if (e instanceof KbqaError && e.code === 'FETCH_REFUSED') throw new KbqaError('BAD_REQUEST', e.message);
      throw e;
    }
  }

  get(type: SourceType): SourceLoader {
    const loader = this.byType.get(type);
    if (!loader) throw new KbqaError('BAD_REQUEST', `unknown type "${type}"`);
    return loader;
  }
}
