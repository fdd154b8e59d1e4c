import { useEffect, useState } from 'preact/hooks';
import { patch, post } from '../api';
import { when } from '../format';
import type { Project } from '../types';
import { Table, Notice, Section, Switch, useNotice } from '../ui';

export function ProjectsPage(props: {
  projects: Project[];
  selected: Project | undefined;
  onChanged: (select?: number) => Promise<void>;
  onSelect: (id: number) => void;
}) {
  const { projects, selected, onChanged, onSelect } = props;
  const [name, setName] = useState('');
  const [notice, run] = useNotice();
  return (
    <Section title="Projects">
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
      {selected && <ProjectSettings key={selected.id} project={selected} onChanged={onChanged} />}
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
}: {
  project: Project;
  onChanged: (select?: number) => Promise<void>;
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
      <p class="muted">
        Widget snippet:{' '}
        <code>{`<script src="${location.origin}/widget.js" data-anon-key="…" defer></script>`}</code>
      </p>
      <Notice notice={notice} />
    </section>
  );
}
