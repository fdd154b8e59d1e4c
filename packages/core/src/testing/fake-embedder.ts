import type { Embedder } from '../embedder';

/**
 * Deterministic embedder for tests: a hashed bag of lower-cased words, normalized. Texts that
 * share words score closer, which is enough to exercise dense and hybrid search mechanics.
 */
export class FakeEmbedder implements Embedder {
  readonly id: string;
  calls = 0;
  embeddedTexts = 0;

  constructor(readonly dimension = 64) {
    this.id = `fake-bow-${dimension}`;
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    this.calls += 1;
    this.embeddedTexts += texts.length;
    return Promise.resolve(texts.map((t) => this.vector(t)));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private vector(text: string): Float32Array {
    const v = new Float32Array(this.dimension);
    for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
      let h = 2166136261;
      for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
      const slot = (h >>> 0) % this.dimension;
      v[slot] = (v[slot] ?? 0) + 1;
    }
    let norm = 0;
    for (const x of v) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) / norm;
    return v;
  }
}
