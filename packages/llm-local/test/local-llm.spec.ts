import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, truncate } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { KbqaError } from '@kbqa/core';
import { inspectModelFile, LocalLlm, LocalModelError, type LocalModelProblem } from '../src';
import { TINY_GGUF_NAME, writeTinyGguf } from '../src/testing';

const MESSAGES = [
  { role: 'system' as const, content: 'Answer from the sources.' },
  { role: 'user' as const, content: 'How do I install the server?' },
];

async function collect(pieces: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const piece of pieces) out.push(piece);
  return out;
}

async function problemOf(
  promise: Promise<unknown>,
): Promise<{ problem: LocalModelProblem; message: string }> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(LocalModelError);
    const { problem, message } = error as LocalModelError;
    return { problem, message };
  }
  throw new Error('expected a LocalModelError');
}

describe(LocalLlm.name, () => {
  let dir: string;
  let modelPath: string;
  let llm: LocalLlm;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'kbqa-llm-local-'));
    modelPath = await writeTinyGguf(dir);
    // One thread: on a shared two-core host, llama.cpp's threads otherwise wait for each other.
    llm = await LocalLlm.load({ modelPath, contextTokens: 512, sequences: 2, maxQueue: 1, threads: 1 });
  });

  afterAll(async () => {
    await llm?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads the tiny model with the prebuilt CPU binary and streams the tokens it generates', async () => {
    expect(llm.info).toMatchObject({
      architecture: 'llama',
      trainedContextTokens: 512,
      hasChatTemplate: true,
    });
    const pieces = await collect(llm.generate(MESSAGES, { maxTokens: 12 }));
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('').trim()).toMatch(/\w/);
    expect(llm.load).toMatchObject({ running: 0, waiting: 0 });
  });

  it('gives the same answer for the same prompt at temperature 0', async () => {
    const a = (await collect(llm.generate(MESSAGES, { maxTokens: 8 }))).join('');
    const b = (await collect(llm.generate(MESSAGES, { maxTokens: 8 }))).join('');
    expect(a).toBe(b);
  });

  it('stops generating and frees the sequence when the signal aborts', async () => {
    const controller = new AbortController();
    const pieces: string[] = [];
    let caught: unknown;
    try {
      for await (const piece of llm.generate(MESSAGES, { maxTokens: 400, signal: controller.signal })) {
        pieces.push(piece);
        if (pieces.length === 3) controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(KbqaError);
    expect((caught as KbqaError).code).toBe('ABORTED');
    expect(pieces).toHaveLength(3);
    expect(llm.load.running).toBe(0);
    // Both sequences are free again: two answers can run at once.
    const both = await Promise.all([
      collect(llm.generate(MESSAGES, { maxTokens: 4 })),
      collect(llm.generate(MESSAGES, { maxTokens: 4 })),
    ]);
    expect(both.every((p) => p.length > 0)).toBe(true);
  });

  it('reads only the new part of a prompt that starts like the last one (the system prompt is cached)', async () => {
    const system = {
      role: 'system' as const,
      content: `Answer from the documentation sources. ${'Use the source to answer the question. '.repeat(12)}`,
    };
    const ask = async (question: string) => {
      const before = llm.usage.inputTokens;
      await collect(llm.generate([system, { role: 'user', content: question }], { maxTokens: 2 }));
      return llm.usage.inputTokens - before;
    };
    const first = await ask('How do I install the server on a new host?');
    const second = await ask('Which port does it use?');
    expect(first).toBeGreaterThan(llm.countTokens(system.content));
    expect(second).toBeLessThan(first / 3);
    expect(llm.usage.outputTokens).toBeGreaterThan(0);
  });

  it('holds the reply to a JSON schema with a grammar', async () => {
    const schema = {
      oneOf: [
        {
          type: 'object',
          properties: {
            tool: { const: 'weather' },
            arguments: { type: 'object', properties: { city: { enum: ['Oslo', 'Lima'] } } },
          },
        },
        { type: 'object', properties: { tool: { type: 'null' } } },
      ],
    };
    const reply = (await collect(llm.generate(MESSAGES, { maxTokens: 200, jsonSchema: schema }))).join('');
    const value = JSON.parse(reply) as { tool: string | null; arguments?: { city: string } };
    expect(
      value.tool === null || (value.tool === 'weather' && ['Oslo', 'Lima'].includes(value.arguments!.city)),
    ).toBe(true);
  });

  it('writes a well-formed tool call when the grammar allows nothing else', async () => {
    const schema = {
      type: 'object',
      properties: {
        tool: { const: 'weather' },
        arguments: {
          type: 'object',
          properties: { city: { enum: ['Oslo', 'Lima'] }, days: { type: 'integer' } },
        },
      },
    };
    const reply = (await collect(llm.generate(MESSAGES, { maxTokens: 200, jsonSchema: schema }))).join('');
    expect(JSON.parse(reply)).toEqual({
      tool: 'weather',
      arguments: { city: expect.stringMatching(/^(Oslo|Lima)$/), days: expect.any(Number) },
    });
  });

  it('frees the sequence when the reader stops early', async () => {
    for await (const _piece of llm.generate(MESSAGES, { maxTokens: 400 })) break;
    expect(llm.load.running).toBe(0);
  });

  it('refuses a request past the wait queue with a busy error', async () => {
    const controllers = [new AbortController(), new AbortController(), new AbortController()];
    const runs = controllers.map((c) =>
      collect(llm.generate(MESSAGES, { maxTokens: 400, signal: c.signal })),
    );
    const settled = runs.map((r) => r.catch((error: unknown) => error));
    // The three requests reach the model in their own time: two run, the third waits for a slot.
    const deadline = Date.now() + 20_000;
    while (llm.load.running + llm.load.waiting < 3) {
      if (Date.now() > deadline) throw new Error(`only ${JSON.stringify(llm.load)} after 20 s`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(llm.load).toMatchObject({ running: 2, waiting: 1 });
    const refused = await collect(llm.generate(MESSAGES, { maxTokens: 4 })).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'MODEL_BUSY', retryAfterSeconds: expect.any(Number) });
    for (const c of controllers) c.abort();
    const results = await Promise.all(settled);
    expect(results.every((r) => r instanceof KbqaError && r.code === 'ABORTED')).toBe(true);
    expect(llm.load).toMatchObject({ running: 0, waiting: 0 });
  });

  describe('a model file it cannot use', () => {
    it('says the file does not exist', async () => {
      const { problem, message } = await problemOf(LocalLlm.load({ modelPath: path.join(dir, 'nope.gguf') }));
      expect(problem).toBe('missing');
      expect(message).toMatch(/nope\.gguf does not exist/);
    });

    it('says a file without the GGUF magic is not a GGUF file', async () => {
      const file = path.join(dir, 'notes.gguf');
      writeFileSync(file, 'These are notes, not a model. '.repeat(20));
      const { problem, message } = await problemOf(LocalLlm.load({ modelPath: file }));
      expect(problem).toBe('not-gguf');
      expect(message).toMatch(/is not a GGUF model file: the file does not start with the GGUF magic/);
    });

    it('says a file cut inside its tensor data is truncated', async () => {
      const file = path.join(dir, 'cut-data.gguf');
      writeFileSync(file, await readFile(modelPath));
      await truncate(file, Math.floor((await readFile(modelPath)).length * 0.8));
      const { problem, message } = await problemOf(LocalLlm.load({ modelPath: file }));
      expect(problem).toBe('truncated');
      expect(message).toMatch(/is truncated: its header describes \d+ bytes but the file has \d+/);
    });

    it('says a file cut inside its header is truncated', async () => {
      const file = path.join(dir, 'cut-header.gguf');
      writeFileSync(file, (await readFile(modelPath)).subarray(0, 2000));
      const { problem, message } = await problemOf(inspectModelFile(file));
      expect(problem).toBe('truncated');
      expect(message).toMatch(/ends inside its GGUF header/);
    });

    it('says an embedding model is not a chat model', async () => {
      const file = await writeTinyGguf(dir, { architecture: 'bert', name: 'bert.gguf' });
      const { problem, message } = await problemOf(LocalLlm.load({ modelPath: file }));
      expect(problem).toBe('unsupported-architecture');
      expect(message).toMatch(/architecture "bert", which is not a chat model/);
    });

    it('says llama.cpp does not support an unknown architecture', async () => {
      const file = await writeTinyGguf(dir, { architecture: 'kbqa-unknown', name: 'unknown.gguf' });
      const { problem, message } = await problemOf(LocalLlm.load({ modelPath: file, threads: 1 }));
      expect(problem).toBe('unsupported-architecture');
      expect(message).toMatch(/architecture "kbqa-unknown", which this llama.cpp build does not support/);
    });
  });

  it('writes the tiny model under its own name', () => {
    expect(path.basename(modelPath)).toBe(TINY_GGUF_NAME);
  });
});
