import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { get, patch, post } from '../api';
import { when } from '../format';
import type { Key, Project } from '../types';
import { Table, Loading, Notice, Section, Switch, useLoad, useNotice } from '../ui';

export function ProjectsPage(props: {
  projects: Project[];
  selected: Project | undefined;
  onChanged: (select?: number) => Promise<void>;
  onSelect: (id: number) => void;
}) {
  const { projects, selected, onChanged, onSelect } = props;
  const [name, setName] = useState('');
  const [notice, run] = useNotice();
  // Bumped when the settings create a key, so the next steps see it.
  const [changes, setChanges] = useState(0);
  return (
    <Section title="Projects">
      {selected && <NextSteps key={selected.id} project={selected} changes={changes} />}
      <Table label="Project list" columns={['Name', 'ID', 'Export', 'Created']}>
        <tbody>
          {projects.map((p) => (
            <tr aria-selected={p.id === selected?.id}>
              <td>
                <button type="button" class="link" onClick={() => onSelect(p.id)}>
                  {p.name}
                </button>
              </td>
              <td>{p.id}</td>
              <td>{p.export_enabled ? 'on' : 'off'}</td>
              <td>{when(p.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </Table>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            const created = await post<Project>('projects', { name });
            setName('');
            await onChanged(created.id);
            return `Created project ${created.name} (id ${created.id}).`;
          });
        }}
      >
        <label for="new-project">New project name</label>
        <input
          id="new-project"
          required
          maxLength={200}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <button type="submit">Create project</button>
      </form>
      <Notice notice={notice} />
      {selected && (
        <ProjectSettings
          key={selected.id}
          project={selected}
          onChanged={onChanged}
          onKeyCreated={() => setChanges((n) => n + 1)}
        />
      )}
    </Section>
  );
}

/** The origin of a URL (what a browser sends in `Origin`), or undefined when it is not an http(s) URL. */
function originOf(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

function ProjectSettings({
  project,
  onChanged,
  onKeyCreated,
}: {
  project: Project;
  onChanged: (select?: number) => Promise<void>;
  onKeyCreated: () => void;
}) {
  const [name, setName] = useState(project.name);
  const [origins, setOrigins] = useState((project.allowed_origins ?? []).join('\n'));
  const [notice, run] = useNotice();
  useEffect(
    () => setOrigins((project.allowed_origins ?? []).join('\n')),
    [project.allowed_origins?.join('\n')],
  );
  const save = (body: Record<string, unknown>, done: string) =>
    run(async () => {
      await patch<Project>(`projects/${project.id}`, body);
      await onChanged(project.id);
      return done;
    });
  return (
    <section aria-label="Project settings" class="card">
      <h2>Settings of {project.name}</h2>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void save({ name }, `Renamed to ${name}.`);
        }}
      >
        <label for="project-name">Project name</label>
        <input
          id="project-name"
          required
          maxLength={200}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <button type="submit">Rename</button>
      </form>
      <p>
        <Switch
          id="export"
          label="Message export (getMessagesData)"
          checked={project.export_enabled}
          run={run}
          save={async (on) => {
            await patch<Project>(`projects/${project.id}`, { export_enabled: on });
            await onChanged(project.id);
            return on ? 'Message export is on.' : 'Message export is off.';
          }}
        />
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const list = origins
            .split(/[\s,]+/)
            .map((o) => o.trim())
            .filter(Boolean);
          const bad = list.find((o) => o !== '*' && originOf(o) !== o.replace(/\/$/, ''));
          if (bad !== undefined) {
            const hint = originOf(bad);
            const why = hint ? `did you mean ${hint}?` : 'expected scheme://host[:port]';
            void run(() => Promise.reject(new Error(`${bad} is not an origin: ${why}`)));
            return;
          }
          void save(
            { allowed_origins: list },
            list.length ? `Widget origins saved (${list.length}).` : 'Widget origins cleared.',
          );
        }}
      >
        <label for="origins">Allowed widget origins (one per line, such as https://docs.example.com)</label>
        <textarea id="origins" rows={3} value={origins} onInput={(e) => setOrigins(e.currentTarget.value)} />
        <button type="submit">Save origins</button>
      </form>
      <Notice notice={notice} />
      <WidgetSnippet project={project} onKeyCreated={onKeyCreated} />
    </section>
  );
}

/** The widget's `<script>` tag for an anon key. */
function widgetSnippet(anonKey: string): string {
  return `<script src="${location.origin}/widget.js" data-anon-key="${anonKey}" defer></script>`;
}

/**
 * The snippet that embeds the chat widget. A key's secret is shown only when it is made, so a
 * ready snippet comes with a new anon key (chat only, and only from the allowed origins).
 */
function WidgetSnippet({ project, onKeyCreated }: { project: Project; onKeyCreated: () => void }) {
  const [anonKey, setAnonKey] = useState<string | undefined>(undefined);
  const [notice, run] = useNotice();
  const noOrigins = (project.allowed_origins ?? []).length === 0;
  return (
    <section aria-labelledby="widget-heading">
      <h3 id="widget-heading">Embed the widget</h3>
      {anonKey === undefined ? (
        <>
          <p>
            Paste the snippet into the pages of an allowed origin, with an anon key of this project:{' '}
            <code>{widgetSnippet('…')}</code>
          </p>
          <button
            type="button"
            onClick={() => {
              void run(async () => {
                const created = await post<{ key: string }>(`projects/${project.id}/keys`, { kind: 'anon' });
                setAnonKey(created.key);
                onKeyCreated();
                return 'Anon key created; the snippet below holds it (shown once: copy it now).';
              });
            }}
          >
            Create an anon key for the widget
          </button>
        </>
      ) : (
        <div class="secret">
          <label for="widget-snippet">Widget snippet with the new anon key (shown once)</label>
          <textarea id="widget-snippet" class="snippet" rows={3} readOnly value={widgetSnippet(anonKey)} />
          <button
            type="button"
            onClick={() => {
              void run(async () => {
                await navigator.clipboard.writeText(widgetSnippet(anonKey));
                return 'Snippet copied to the clipboard.';
              });
            }}
          >
            Copy snippet
          </button>
        </div>
      )}
      {noOrigins && (
        <p class="muted">
          No origin is allowed yet: the widget answers only on pages of the origins listed above.
        </p>
      )}
      <Notice notice={notice} />
    </section>
  );
}

/** What a project has, for its next steps; counts come from the first page of each list. */
interface Progress {
  keys: Key[];
  sources: number;
  conversations: number;
}

/**
 * The first things to do with a project, each marked done from what the project has: a key, a
 * source, a conversation (the playground makes one), an anon key a page has used (the widget).
 * The list stays until every step is done.
 */
function NextSteps({ project, changes }: { project: Project; changes: number }) {
  const progress = useLoad<Progress>(async () => {
    const [keys, sources, conversations] = await Promise.all([
      get<{ keys: Key[] }>(`projects/${project.id}/keys`),
      get<{ total: number }>(`projects/${project.id}/sources?limit=1`),
      get<{ total: number }>(`projects/${project.id}/conversations?limit=1`),
    ]);
    return { keys: keys.keys, sources: sources.total, conversations: conversations.total };
  }, [project.id, changes]);
  if (!progress.data) return progress.error ? <Loading error={progress.error} /> : null;
  const { keys, sources, conversations } = progress.data;
  const active = keys.filter((k) => !k.revoked);
  const steps: Array<{ done: boolean; text: ComponentChildren }> = [
    {
      done: active.length > 0,
      text: (
        <>
          Create a key on the <a href="#/keys">Keys</a> page: a server key for your back end, or an anon key
          for the widget
        </>
      ),
    },
    {
      done: sources > 0,
      text: (
        <>
          Add a source: crawl a site or a sitemap on the <a href="#/indexes">Indexes</a> page, or teach an
          answer on the <a href="#/teaching">Teaching</a> page
        </>
      ),
    },
    {
      done: conversations > 0,
      text: (
        <>
          Ask a question in the <a href="#/playground">Playground</a>
        </>
      ),
    },
    {
      done: active.some((k) => k.kind === 'anon' && k.last_used_at),
      text: <>Embed the widget in a page (snippet below, under the project's settings)</>,
    },
  ];
  // Once all are done, one quiet line instead of the list (which loading shows nothing of).
  if (steps.every((s) => s.done)) {
    return <p class="muted">First steps done: a key, sources, questions asked and the widget in use.</p>;
  }
  return (
    <section aria-labelledby="next-steps-heading" class="card">
      <h2 id="next-steps-heading">Next steps for {project.name}</h2>
      <ol class="steps">
        {steps.map((s) => (
          <li class={s.done ? 'done' : undefined}>
            <span class="step-state">{s.done ? 'Done:' : 'To do:'}</span>
            <span class="step">{s.text}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
