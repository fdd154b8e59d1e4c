import { DEFAULT_LOCAL_MODEL, LOCAL_MODEL_PROFILES, localModelProfile, localModelUrl } from '../src';

describe('LOCAL_MODEL_PROFILES', () => {
  it('gives every model a well-formed digest, size and revision where it gives one', () => {
    for (const p of LOCAL_MODEL_PROFILES) {
      if (p.sha256 !== undefined) expect(p.sha256).toMatch(/^[0-9a-f]{64}$/);
      if (p.fileBytes !== undefined) expect(Number.isInteger(p.fileBytes) && p.fileBytes > 0).toBe(true);
      if (p.revision !== undefined) expect(p.revision).toMatch(/^[0-9a-f]{40}$/);
    }
    expect(new Set(LOCAL_MODEL_PROFILES.map((p) => p.name)).size).toBe(LOCAL_MODEL_PROFILES.length);
  });

  it('cites a pinned source and a date for every quality figure, consistency being 100 − hallucination', () => {
    for (const { quality } of LOCAL_MODEL_PROFILES) {
      if (!quality) continue;
      expect(quality.sourceUrl).toMatch(/^https:\/\/github\.com\/[\w-]+\/[\w-]+\/blob\/[0-9a-f]{40}\//);
      expect(quality.sourceDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(quality.factualConsistencyPct).toBeCloseTo(100 - quality.hallucinationRatePct, 5);
    }
  });

  it('defaults to a model of the table', () => {
    expect(localModelProfile(DEFAULT_LOCAL_MODEL)).toBeDefined();
  });
});

describe(localModelUrl.name, () => {
  it('downloads the revision the digest was published for, else main, from the host given', () => {
    const pinned = localModelProfile('gemma-3-1b-it')!;
    expect(localModelUrl(pinned)).toBe(
      `https://huggingface.co/ggml-org/gemma-3-1b-it-GGUF/resolve/${pinned.revision}/gemma-3-1b-it-Q4_K_M.gguf`,
    );
    const unpinned = { ...pinned, revision: undefined };
    expect(localModelUrl(unpinned, 'http://mirror.local//')).toBe(
      'http://mirror.local/ggml-org/gemma-3-1b-it-GGUF/resolve/main/gemma-3-1b-it-Q4_K_M.gguf',
    );
  });
});
