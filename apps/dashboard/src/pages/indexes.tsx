import { useEffect, useState } from 'preact/hooks';
import { del, get, patch, post } from '../api';
import { when } from '../format';
import type { IndexRow, Project, TaskReport, TaskSummary } from '../types';
import { DangerButton, Table, Loading, Notice, Section, Switch, useLoad, useNotice } from '../ui';

/** The `type` values of ingestData, with what each takes as its URL. */
const TYPES: Array<[string, string]> = [
  ['website-crawler', 'Website (crawled from this page)'],
  ['docusaurus', 'Docusaurus site'],
  ['sitemap', 'Sitemap (sitemap.xml URL)'],
  ['url', 'Single page'],
  ['github', 'GitHub or git repository'],
  ['youtube', 'YouTube video, playlist or channel'],
];

const paths = (text: string) =>
  text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);

export function IndexesPage({ project }: { project: Project }) {
  const indexes = useLoad(() => get<{ indexes: IndexRow[] }>(`projects/${project.id}/indexes`), [project.id]);
  const [notice, run] = useNotice();
  const [tasksTick, setTasksTick] = useState(0);
  const changed = () => {
    indexes.reload();
    setTasksTick((t) => t + 1);
  };
  return (
    <Section title={`Indexes of ${project.name}`}>
      {!indexes.data ? (
        <Loading error={indexes.error} />
      ) : indexes.data.indexes.length === 0 ? (
        <p class="muted">No index yet: start an ingestion below.</p>
      ) : (
        <Table
          label="Index list"
          columns={['Type', 'URL', 'Pages', 'Last sync', 'Next sync', 'Auto sync', '']}
        >
          <tbody>
            {indexes.data.indexes.map((ix) => (
              <tr>
                <td>{ix.type}</td>
                <td class="url">{ix.url}</td>
                <td>{ix.pages}</td>
                <td>{when(ix.last_synced_at)}</td>
                <td>{ix.auto_sync ? when(ix.next_sync_at) : '—'}</td>
                <td>
                  <Switch
                    id={`auto-sync-${ix.id}`}
                    name={`Auto sync ${ix.url}`}
                    label="Auto sync"
                    labelClass="inline-label"
                    checked={ix.auto_sync}
                    run={run}
                    save={async (on) => {
                      await patch(`indexes/${ix.id}`, { auto_sync: on });
                      indexes.reload();
                      return `Auto sync of ${ix.url} is ${on ? 'on' : 'off'}.`;
                    }}
                  />
                </td>
                <td class="actions">
                  <button
                    type="button"
                    aria-label={`Sync now ${ix.url}`}
                    onClick={() => {
                      void run(async () => {
                        const res = await post<{ task_id: number }>(`indexes/${ix.id}/sync`);
                        changed();
                        return `Sync started (task ${res.task_id}).`;
                      });
                    }}
                  >
                    Sync now
                  </button>
                  <DangerButton
                    name={`Delete index ${ix.url}`}
                    label="Delete"
                    onClick={() => {
                      void run(async () => {
                        const res = await del<{ removed_pages: number }>(`indexes/${ix.id}`);
                        changed();
                        return `Deleted the index of ${ix.url} and its ${res.removed_pages} pages.`;
                      });
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <Notice notice={notice} />
      <IngestForm project={project} onStarted={changed} />
      <Tasks project={project} tick={tasksTick} onFinished={() => indexes.reload()} />
    </Section>
  );
}

function IngestForm({ project, onStarted }: { project: Project; onStarted: () => void }) {
  const [type, setType] = useState('website-crawler');
  const [url, setUrl] = useState('');
  const [include, setInclude] = useState('');
  const [exclude, setExclude] = useState('');
  const [versionPattern, setVersionPattern] = useState('');
  const [notice, run] = useNotice();
  return (
    <section aria-label="Start an ingestion" class="card">
      <h2>Start an ingestion</h2>
      <form
        class="grid"
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            const body: Record<string, unknown> = { type, url };
            if (paths(include).length) body.include_paths = paths(include);
            if (paths(exclude).length) body.exclude_paths = paths(exclude);
            if (versionPattern.trim()) body.version_pattern = versionPattern.trim();
            const res = await post<{ task_id: number }>(`projects/${project.id}/ingest`, body);
            onStarted();
            return `Ingestion started (task ${res.task_id}).`;
          });
        }}
      >
        <label for="ingest-type">Type</label>
        <select id="ingest-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
          {TYPES.map(([value, label]) => (
            <option value={value}>{label}</option>
          ))}
        </select>
        <label for="ingest-url">URL</label>
        <input
          id="ingest-url"
          type="url"
          required
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
        <label for="ingest-include">Include paths (comma separated, optional)</label>
        <input
          id="ingest-include"
          aria-describedby="ingest-paths-help"
          value={include}
          onInput={(e) => setInclude(e.currentTarget.value)}
        />
        <label for="ingest-exclude">Exclude paths (comma separated, optional)</label>
        <input
          id="ingest-exclude"
          aria-describedby="ingest-paths-help"
          value={exclude}
          onInput={(e) => setExclude(e.currentTarget.value)}
        />
        <span />
        <p id="ingest-paths-help" class="muted">
          Paths start with <code>/</code>. <code>/docs/graphql</code> is that page and everything under it
          (not <code>/docs/graphql-old</code>); <code>*</code> is any run of characters, so{' '}
          <code>/docs/*</code> is everything under <code>/docs</code> but not <code>/docs</code> itself, and{' '}
          <code>*.html</code> every path ending so; <code>/</code> alone is the home page. A pattern that
          matched no URL is named in the task's report.
        </p>
        <label for="ingest-version-pattern">Version pattern (optional)</label>
        <input
          id="ingest-version-pattern"
          aria-describedby="ingest-version-help"
          value={versionPattern}
          onInput={(e) => setVersionPattern(e.currentTarget.value)}
        />
        <span />
        <p id="ingest-version-help" class="muted">
          For versioned docs served under a path prefix: a regular expression whose first group is the
          version, e.g. <code>^/v(\d+)/</code>. Docusaurus and Read the Docs versions are found without it.
        </p>
        <span />
        <button type="submit">Start ingestion</button>
      </form>
      <Notice notice={notice} />
    </section>
  );
}

const open = (status: string) => status === 'pending' || status === 'running';

/** Recent tasks; while one runs, its progress is read again every second. */
function Tasks({ project, tick, onFinished }: { project: Project; tick: number; onFinished: () => void }) {
  const [tasks, setTasks] = useState<TaskSummary[] | undefined>(undefined);
  const [progress, setProgress] = useState<Record<number, TaskReport>>({});
  const [report, setReport] = useState<TaskReport | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = 0;
    const poll = async () => {
      try {
        const list = (await get<{ tasks: TaskSummary[] }>(`projects/${project.id}/tasks?limit=20`)).tasks;
        const openTasks = list.filter((t) => open(t.status));
        const details = await Promise.all(openTasks.map((t) => get<TaskReport>(`tasks/${t.id}`)));
        if (!live) return;
        setTasks(list);
        setProgress(Object.fromEntries(details.map((d) => [d.id, d])));
        if (running > 0 && openTasks.length < running) onFinished();
        running = openTasks.length;
        if (openTasks.length > 0) timer = setTimeout(() => void poll(), 1000);
      } catch (e) {
        if (live) setError(e instanceof Error ? e.message : String(e));
      }
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [project.id, tick]);
  return (
    <section aria-label="Tasks" class="card">
      <h2>Tasks</h2>
      {!tasks ? (
        <Loading error={error} />
      ) : tasks.length === 0 ? (
        <p class="muted">No task yet.</p>
      ) : (
        <Table
          label="Task list"
          columns={['Task', 'Kind', 'Status', 'Progress', 'Indexed', 'Skipped', 'Started', '']}
        >
          <tbody>
            {tasks.map((t) => {
              const live = progress[t.id];
              const status = t.status === 'completed' ? (t.success ? 'completed' : 'failed') : t.status;
              return (
                <tr>
                  <td>{t.id}</td>
                  <td>{t.kind}</td>
                  <td>{status}</td>
                  <td>
                    {live ? (
                      <>
                        <progress
                          aria-label={`Task ${t.id} progress`}
                          max={Math.max(live.total, 1)}
                          value={live.current}
                        />{' '}
                        {live.current}/{live.total} {live.current_step.toLowerCase()}
                      </>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>{t.indexed}</td>
                  <td>{t.skipped}</td>
                  <td>{new Date(t.created_at).toLocaleTimeString()}</td>
                  <td>
                    <button
                      type="button"
                      aria-label={`Report of task ${t.id}`}
                      onClick={() => {
                        get<TaskReport>(`tasks/${t.id}`).then(setReport, (e: unknown) => setError(String(e)));
                      }}
                    >
                      Report
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </Table>
      )}
      {report && <Report report={report} />}
    </section>
  );
}

function Report({ report }: { report: TaskReport }) {
  const c = report.counts;
  return (
    <section aria-label={`Report of task ${report.id}`} class="report">
      <h4>Report of task {report.id}</h4>
      <p>
        {report.status === 'completed'
          ? report.success
            ? 'Completed'
            : `Failed: ${report.error ?? ''}`
          : report.status}
        {' · '}
        {report.indexed_count} indexed, {report.skipped_count} skipped
        {c &&
          ` · ${c.added} added, ${c.updated} updated, ${c.unchanged} unchanged, ${c.removed} removed, ${c.failed} failed`}
      </p>
      {report.note && <p class="muted">{report.note}</p>}
      <h5>Indexed</h5>
      <ul>
        {report.indexed.map((u) => (
          <li>{u}</li>
        ))}
      </ul>
      <h5>Skipped</h5>
      {report.skipped.length === 0 ? (
        <p class="muted">Nothing was skipped.</p>
      ) : (
        <Table label="Skipped URL list" columns={['URL', 'Why']}>
          <tbody>
            {report.skipped.map((s) => (
              <tr>
                <td class="url">{s.url}</td>
                <td>
                  {s.code ? `${s.code}: ` : ''}
                  {s.reason}
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}
