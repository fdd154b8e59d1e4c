import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { openDataSource } from '../data-source';
import { ToolSourceEntity } from '../entities';

describe('migration to tool sources', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kbqa-tool-sources-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stores a source with its headers, private by default, one name per project, gone with its project', async () => {
    const ds = await openDataSource({ file: join(dir, 'kbqa.sqlite') });
    try {
      const now = '2026-11-25T00:00:00.000000';
      await ds.query("INSERT INTO projects (id, name, created_at) VALUES (1, 'a', ?)", [now]);
      const repo = ds.getRepository(ToolSourceEntity);
      const source = () =>
        repo.create({
          projectId: 1,
          kind: 'mcp',
          name: 'docs',
          url: 'https://mcp.example.com/mcp',
          headers: [{ name: 'Authorization', value: 'Bearer s' }],
          createdAt: now,
          updatedAt: now,
        });
      const saved = await repo.save(source());
      const loaded = await repo.findOneByOrFail({ id: saved.id });
      expect(loaded.headers).toEqual([{ name: 'Authorization', value: 'Bearer s' }]);
      expect(loaded.isPublic).toBe(false);
      await expect(repo.save(source())).rejects.toThrow(/UNIQUE/);
      await ds.query('DELETE FROM projects WHERE id = 1');
      expect(await repo.count()).toBe(0);
    } finally {
      await ds.destroy();
    }
  });
});
