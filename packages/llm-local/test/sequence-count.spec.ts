import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chooseSequenceCount, inspectModelFile } from '../src';
import { writeTinyGguf } from '../src/testing';

const MB = 1024 * 1024;
const GB = 1024 * MB;

describe(chooseSequenceCount.name, () => {
  // A 400 MB model with a 2,048-token context at 112 KB a token (Qwen3 0.6B's shape).
  const model = { modelBytes: 400 * MB, perSequenceBytes: 2048 * 112 * 1024 };

  it('runs one sequence per two cores when memory is plentiful', () => {
    expect(chooseSequenceCount({ ...model, cores: 2, freeMemoryBytes: 16 * GB }).sequences).toBe(1);
    expect(chooseSequenceCount({ ...model, cores: 8, freeMemoryBytes: 16 * GB }).sequences).toBe(4);
    expect(chooseSequenceCount({ ...model, cores: 9, freeMemoryBytes: 16 * GB }).sequences).toBe(4);
  });

  it('never runs fewer than one sequence, even on one core or with no memory to spare', () => {
    expect(chooseSequenceCount({ ...model, cores: 1, freeMemoryBytes: 16 * GB }).sequences).toBe(1);
    expect(chooseSequenceCount({ ...model, cores: 8, freeMemoryBytes: 100 * MB }).sequences).toBe(1);
  });

  it('fits the sequences in the memory left beside the weights and the runtime', () => {
    // 1,024 MB free − 400 MB weights − 200 MB runtime = 424 MB, for 224 MB a sequence: one.
    const tight = chooseSequenceCount({ ...model, cores: 16, freeMemoryBytes: 1024 * MB });
    expect(tight).toMatchObject({ sequences: 1, byCores: 8, byMemory: 1 });
    expect(tight.reason).toMatch(
      /^1 sequence, bounded by 1024 MB free memory \(weights 400 MB, 224 MB a sequence\)/,
    );
    // Room for three: 400 + 200 + 3 × 224 = 1,272 MB.
    const three = chooseSequenceCount({ ...model, cores: 16, freeMemoryBytes: 1272 * MB });
    expect(three).toMatchObject({ sequences: 3, byMemory: 3 });
  });

  it('says when the cores bound the count, and that the environment overrides it', () => {
    const choice = chooseSequenceCount({ ...model, cores: 4, freeMemoryBytes: 16 * GB });
    expect(choice.sequences).toBe(2);
    expect(choice.reason).toBe(
      '2 sequences, bounded by 4 cores (one sequence per 2); KBQA_LLM_SEQUENCES overrides',
    );
  });

  it('stays under the upper bound on a large host', () => {
    const big = chooseSequenceCount({ ...model, cores: 128, freeMemoryBytes: 1024 * GB });
    expect(big.sequences).toBe(16);
    expect(big.reason).toMatch(/bounded by the upper bound 16/);
    expect(chooseSequenceCount({ ...model, cores: 128, freeMemoryBytes: 1024 * GB, max: 6 }).sequences).toBe(
      6,
    );
  });
});

describe(inspectModelFile.name, () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'kbqa-kv-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("computes a token's KV cache size from the header's attention figures", async () => {
    const info = await inspectModelFile(await writeTinyGguf(dir));
    // The tiny model: 2 layers × 4 KV heads × (16 + 16) key and value sizes × 2 bytes.
    expect(info.kvBytesPerToken).toBe(2 * 4 * (16 + 16) * 2);
  });
});
