import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import type { App } from 'supertest/types';
import { createApp } from '../src/bootstrap';
import { type AppConfig, loadConfig } from '../src/config/config';
import type { DataSource } from 'typeorm';
import { DATA_SOURCE } from '../src/database/database.module';
import { runSql } from '../src/database/sql';
import { ProjectsService } from '../src/projects/projects.service';

export interface TestProject {
  id: number;
  serverKey: string;
  anonKey: string;
}

export interface TestApp {
  app: INestApplication;
  http: App;
  config: AppConfig;
  dataDir: string;
  projects: ProjectsService;
  createProject(name?: string): Promise<TestProject>;
  post(path: string, body: unknown): request.Test;
  /** Reads the database directly, for assertions on what was stored (`?` placeholders on either store). */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /**
   * Polls ingestionStatus until the task completes; sends the server key of the task's project
   * when this TestApp created it (a keyless status hides error texts).
   */
  waitForTask(taskId: number, timeoutMs?: number): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Boots the real AppModule on a fresh data directory (no network, no model). */
export async function startTestApp(
  env: Record<string, string> = {},
  options: { dataDir?: string } = {},
): Promise<TestApp> {
  // A given data directory belongs to the caller and outlives the app (restart tests).
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'kbqa-test-'));
  const config = loadConfig({ KBQA_DATA_DIR: dataDir, KBQA_EMBED_MODEL: 'none', ...env }, dataDir);
  const app = await createApp(config, { logger: false });
  const http = app.getHttpServer() as App;
  const projects = app.get(ProjectsService);
  const serverKeys = new Map<number, string>();
  const post = (path: string, body: unknown) =>
    request(http)
      .post(path)
      .send(body as object);
  return {
    app,
    http,
    config,
    dataDir,
    projects,
    post,
    query: (sql, params) => runSql(app.get<DataSource>(DATA_SOURCE), sql, params),
    async createProject(name = 'test') {
      const p = await projects.createProject(name);
      const server = await projects.createKey(p.id, 'server');
      const anon = await projects.createKey(p.id, 'anon');
      serverKeys.set(p.id, server.key);
      return { id: p.id, serverKey: server.key, anonKey: anon.key };
    },
    async waitForTask(taskId, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      const [task] = await runSql<Array<{ project_id: number }>>(
        app.get<DataSource>(DATA_SOURCE),
        'SELECT project_id FROM ingestion_tasks WHERE id = ?',
        [taskId],
      );
      const apiKey = task ? serverKeys.get(task.project_id) : undefined;
      for (;;) {
        const res = await post('/v1/ingestionStatus', { task_id: String(taskId), api_key: apiKey });
        const body = res.body as Record<string, unknown>;
        if (body.status === 'completed') return body;
        if (Date.now() > deadline)
          throw new Error(`task ${taskId} did not complete: ${JSON.stringify(body)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      await app.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
