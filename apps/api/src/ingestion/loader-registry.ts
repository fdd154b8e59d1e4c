import { KbqaError, SOURCE_TYPES, type SourceLoader, type SourceType } from '@kbqa/core';

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

  get(type: SourceType): SourceLoader {
    const loader = this.byType.get(type);
    if (!loader) throw new KbqaError('BAD_REQUEST', `unknown type "${type}"`);
    return loader;
  }
}
