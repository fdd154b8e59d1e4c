import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { openDataSource } from '../data-source';
import { ToolEntity } from '../entities';

describe('migration to tools', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kbqa-tools-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stores a tool with its JSON columns, private by default, one name per project', async () => {
    const ds = await openDataSource({ file: join(dir, 'kbqa.sqlite') });
    try {
      const now = '2026-11-25T00:00:00.000000';
      await ds.query("INSERT INTO projects (id, name, created_at) VALUES (1, 'a', ?), (2, 'b', ?)", [
        now,
        now,
      ]);
      const repo = ds.getRepository(ToolEntity);
      const tool = (projectId: number) =>
        repo.create({
          projectId,
          name: 'lookup',
          description: 'd',
          parameters: { type: 'object' },
          method: 'GET',
          url: 'https://api.example.com/{q}',
          headers: [{ name: 'X-Key', value: 'secret' }],
          body: null,
          createdAt: now,
          updatedAt: now,
        });
      const saved = await repo.save(tool(1));
      const loaded = await repo.findOneByOrFail({ id: saved.id });
      expect(loaded.parameters).toEqual({ type: 'object' });
      expect(loaded.headers).toEqual([{ name: 'X-Key', value: 'secret' }]);
      expect(loaded.isPublic).toBe(false);
      await expect(repo.save(tool(1))).rejects.toThrow(/UNIQUE/);
      await expect(repo.save(tool(2))).resolves.toMatchObject({ projectId: 2 });
    } finally {
      await ds.destroy();
    }
  });
});
