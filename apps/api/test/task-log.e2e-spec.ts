import { Logger } from '@nestjs/common';
import type { TaskLeaseRepository } from '@kbqa/core';
import { startServer, type TestServer } from '@kbqa/core/testing';
import { TASK_LEASE_REPOSITORY } from '../src/database/tasks.providers';
import { startTestApp, type TestApp, type TestProject } from './helpers';

describe('Ingestion task log lines (e2e)', () => {
  let site: TestServer;
  let t: TestApp;
  let p: TestProject;
  const lines: Array<{ level: string; text: string }> = [];
  const spies: jest.SpyInstance[] = [];

  beforeAll(async () => {
    for (const level of ['log', 'warn', 'error'] as const) {
      spies.push(
        jest
          .spyOn(Logger.prototype, level)
          .mockImplementation(
            (...args: unknown[]) => void lines.push({ level, text: args.map(String).join(' ') }),
          ),
      );
    }
    site = await startServer((req, res) => {
      if (req.url !== '/page') return void res.writeHead(404).end('gone');
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<html><head><title>Page</title></head><body><main><h1>Page</h1><p>Some text here.</p></main></body></html>',
      );
    });
    t = await startTestApp({ KBQA_ALLOW_PRIVATE_HOSTS: site.hostPort });
    p = await t.createProject('log');
  });
  afterAll(async () => {
    await t.close();
    await site.close();
    spies.forEach((s) => s.mockRestore());
  });

  const linesOf = (taskId: number) => lines.filter((l) => new RegExp(`\\btask ${taskId}\\b`).test(l.text));

  it('logs one line when a task starts and one when it completes', async () => {
    const res = await t
      .post('/v1/ingestDocuments', {
        api_key: p.serverKey,
        documents: [{ source: 'a', content: '# A\n\nalpha' }],
      })
      .expect(200);
    await t.waitForTask(res.body.task_id);
    const mine = linesOf(res.body.task_id);
    expect(mine).toEqual([
      {
        level: 'log',
        text: expect.stringMatching(
          new RegExp(`^task ${res.body.task_id} started: project ${p.id}, documents`),
        ),
      },
      {
        level: 'log',
        text: expect.stringMatching(/completed in [\d.]+ s: 1 source\(s\), 1 chunk\(s\), 0 skipped$/),
      },
    ]);
  });

  it('logs one line with the code and reason when a task fails', async () => {
    const res = await t
      .post('/v1/ingestData', { api_key: p.serverKey, type: 'url', url: `${site.origin}/missing` })
      .expect(200);
    await t.waitForTask(res.body.task_id);
    const mine = linesOf(res.body.task_id);
    expect(mine).toHaveLength(2);
    expect(mine[1]).toEqual({
      level: 'warn',
      text: expect.stringMatching(/failed after [\d.]+ s \(FETCH_FAILED\): .*404/),
    });
  });

  it('survives a progress write that fails: no unhandled rejection, one warning', async () => {
    // Progress goes through the leases (no Redis): only while this process holds the task.
    const leases = t.app.get<TaskLeaseRepository>(TASK_LEASE_REPOSITORY);
    const update = leases.updateHeld.bind(leases);
    let failing = true;
    const spy = jest.spyOn(leases, 'updateHeld').mockImplementation((taskId, owner, write) => {
      // The loader's own progress report (page 1 of 1), which the runner cannot await.
      if (failing && write.currentStep === 'SCRAPING' && write.current === 1 && write.total === 1) {
        return Promise.reject(new Error('disk I/O error'));
      }
      return update(taskId, owner, write);
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const res = await t
        .post('/v1/ingestData', { api_key: p.serverKey, type: 'url', url: `${site.origin}/page` })
        .expect(200);
      await t.waitForTask(res.body.task_id);
      failing = false;
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
      expect(linesOf(res.body.task_id).filter((l) => l.text.includes('progress not saved'))).toEqual([
        { level: 'warn', text: expect.stringContaining('disk I/O error') },
      ]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      spy.mockRestore();
    }
  });
});
