import { resolve } from 'node:path';
import { intArg, UsageError } from './cli-args';
import type { IndexesService, IndexView } from './indexes/indexes.service';

/** `kbqa indexes …`: list, show, sync --on|--off, resync, delete. */
export async function indexesCommand(
  indexes: IndexesService,
  action: string | undefined,
  arg: string | undefined,
  flags: Map<string, string | true>,
  /** How the user runs this command line (AppConfig.command), for the next command to type. */
  command: string,
): Promise<{ text: string; json: unknown }> {
  if (action === 'list') {
    const list = await indexes.list(intArg(flags.get('project'), '--project'));
    return { text: list.map(line).join('\n') || 'no indexes', json: { indexes: list } };
  }
  const id = intArg(arg, 'index id');
  if (action === 'show') {
    const index = await indexes.show(id);
    return { text: line(index), json: index };
  }
  if (action === 'sync') {
    const on = flags.has('on');
    if (on === flags.has('off')) throw new UsageError('indexes sync needs --on or --off');
    const index = await indexes.setAutoSync(id, on);
    return {
      text: `index ${id}: auto sync ${on ? `on, next at ${index.next_sync_at}` : 'off'}`,
      json: index,
    };
  }
  if (action === 'resync') {
    const taskId = await indexes.resync(id);
    return {
      text: `index ${id}: sync queued as task ${taskId} (the service runs it; see ${command} tasks show ${taskId})`,
      json: { index_id: id, task_id: taskId },
    };
  }
  if (action === 'delete') {
    const deleted = await indexes.delete(id);
    return { text: `index ${id} deleted with ${deleted.removed_pages} page(s)`, json: deleted };
  }
  throw new UsageError(`unknown command: indexes ${action ?? ''}`.trim());
}

/**
 * `kbqa indexes add-folder --project <id> <path>`: a relative path is taken from the current
 * folder. The first load waits in the database for the service, whose watcher then keeps the
 * index in step.
 */
export async function addFolderCommand(
  indexes: IndexesService,
  projectId: number,
  path: string,
  command: string,
): Promise<{ text: string; json: unknown }> {
  const created = await indexes.addFolder(projectId, resolve(path));
  const index = await indexes.show(created.index_id);
  return {
    text:
      `index ${index.id}: folder ${index.url}, load queued as task ${created.task_id} ` +
      `(the service runs it and watches the folder; see ${command} tasks show ${created.task_id})`,
    json: { ...created, index },
  };
}

function line(i: IndexView): string {
  return [
    i.id,
    i.type,
    i.url,
    `${i.pages} page(s)`,
    `auto sync ${i.auto_sync ? `on (next ${i.next_sync_at})` : 'off'}`,
    `last synced ${i.last_synced_at ?? 'never'}`,
    i.last_task_id === null ? '' : `task ${i.last_task_id}`,
  ]
    .filter((f) => f !== '')
    .join('\t');
}
