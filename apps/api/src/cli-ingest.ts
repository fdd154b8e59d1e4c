import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, relative, resolve, sep } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import type { TaskRepository } from '@kbqa/core';
import { FILE_EXTENSIONS } from '@kbqa/loader-files';
import { UsageError } from './cli-args';
import type { AppConfig } from './config/config';
import { TASK_REPOSITORY } from './database/tasks.providers';
import { parseFileMetadata } from './ingestion/ingestion.dto';
import type { FilesPayload } from './ingestion/ingestion.runner';
import { ProjectsService } from './projects/projects.service';

interface LocalFile {
  /** Its source in the project: a file's base name, or `<folder>/<path within it>`. */
  name: string;
  path: string;
  size: number;
}

const READABLE = new Set(FILE_EXTENSIONS);

/**
 * `kbqa ingest --project <id> <file or folder>…`: the files (a folder's readable ones, walked
 * without hidden entries) become `ingestFiles` tasks, split to stay within the upload limits. The
 * tasks wait in the database for the service's workers, as `indexes resync` does.
 */
export async function ingestFilesCommand(
  ctx: INestApplicationContext,
  config: AppConfig,
  projectId: number,
  paths: readonly string[],
  metadataJson: string | undefined,
): Promise<{ text: string; json: unknown }> {
  await ctx.get(ProjectsService).getProject(projectId);
  const metadata = parseFileMetadata(metadataJson);
  const files: LocalFile[] = [];
  for (const p of paths) files.push(...(await collect(resolve(p))));
  if (files.length === 0) {
    throw new UsageError(
      `no readable file in ${paths.join(', ')} (kbqa reads ${FILE_EXTENSIONS.join(', ')})`,
    );
  }
  const { maxFileBytes, maxRequestBytes, maxFiles } = config.uploads;
  const tooBig = files.find((f) => f.size > maxFileBytes);
  if (tooBig) {
    throw new UsageError(
      `${tooBig.path} is larger than ${maxFileBytes} bytes (KBQA_UPLOAD_MAX_FILE_BYTES); leave it out or raise the limit`,
    );
  }
  const batches: LocalFile[][] = [];
  let current: LocalFile[] = [];
  let bytes = 0;
  for (const f of files) {
    if (current.length > 0 && (current.length >= maxFiles || bytes + f.size > maxRequestBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(f);
    bytes += f.size;
  }
  batches.push(current);
  const tasks = ctx.get<TaskRepository>(TASK_REPOSITORY);
  const taskIds: number[] = [];
  for (const batch of batches) {
    const payload: FilesPayload = {
      files: await Promise.all(
        batch.map(async (f) => ({ name: f.name, data: (await readFile(f.path)).toString('base64') })),
      ),
      ...(metadata ? { metadata } : {}),
    };
    const id = await tasks.create({
      projectId,
      kind: 'files',
      payload: JSON.stringify(payload),
      total: batch.length,
      indexId: null,
    });
    taskIds.push(id);
  }
  const ids = taskIds.join(', ');
  return {
    text:
      `${files.length} file(s) queued as task${taskIds.length > 1 ? 's' : ''} ${ids} ` +
      `(the service runs ${taskIds.length > 1 ? 'them' : 'it'}; see ${config.command} tasks show ${taskIds[0]})`,
    json: { task_ids: taskIds, files: files.map((f) => f.name) },
  };
}

async function collect(path: string): Promise<LocalFile[]> {
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new UsageError(`no such file or folder: ${path}`);
  }
  if (info.isFile()) return [{ name: basename(path), path, size: info.size }];
  if (!info.isDirectory()) throw new UsageError(`not a file or folder: ${path}`);
  const root = basename(path);
  const out: LocalFile[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const full = join(dir, e.name);
      if (e.isDirectory()) await walk(full);
      else if (e.isFile() && READABLE.has(extname(e.name).toLowerCase())) {
        const size = (await stat(full)).size;
        out.push({ name: [root, ...relative(path, full).split(sep)].join('/'), path: full, size });
      }
    }
  };
  await walk(path);
  return out;
}
