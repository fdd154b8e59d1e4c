import { render } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { get, login, logout, readSession, setSession } from './api';
import { AnalyticsPage } from './pages/analytics';
import { ConversationsPage } from './pages/conversations';
import { IndexesPage } from './pages/indexes';
import { KeysPage } from './pages/keys';
import { PlaygroundPage } from './pages/playground';
import { ProjectsPage } from './pages/projects';
import { SourcesPage } from './pages/sources';
import { TeachingPage } from './pages/teaching';
import type { Project } from './types';
import { Loading, Notice, useNotice } from './ui';

const PAGES = [
  ['projects', 'Projects'],
  ['keys', 'Keys'],
  ['indexes', 'Indexes'],
  ['sources', 'Sources'],
  ['teaching', 'Teaching'],
  ['conversations', 'Conversations'],
  ['analytics', 'Analytics'],
  ['playground', 'Playground'],
] as const;
type PageId = (typeof PAGES)[number][0];

function pageFromHash(): PageId {
  const id = location.hash.replace(/^#\/?/, '');
  return PAGES.find(([p]) => p === id)?.[0] ?? 'projects';
}

function Login({ onLogin }: { onLogin: (csrf: string) => void }) {
  const [token, setToken] = useState('');
  const [notice, run] = useNotice();
  useEffect(() => {
    document.title = 'Log in — kbqa dashboard';
  }, []);
  return (
    <main class="login">
      <h1>kbqa dashboard</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            const session = await login(token);
            onLogin(session.csrf_token ?? '');
          });
        }}
      >
        <label for="token">Operator token</label>
        <input
          id="token"
          type="password"
          autocomplete="current-password"
          required
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
        />
        <p class="muted">
          Print a new one with <code>kbqa admin token</code> (the service's start-up lines name the command as
          you run it).
        </p>
        <button type="submit">Log in</button>
      </form>
      <Notice notice={notice} />
    </main>
  );
}

function Shell({ onLogout, loggedIn }: { onLogout: () => void; loggedIn: boolean }) {
  const [page, setPage] = useState<PageId>(pageFromHash());
  const [projects, setProjects] = useState<Project[] | undefined>(undefined);
  const [projectId, setProjectId] = useState<number | undefined>(
    () => Number(localStorage.getItem('kbqa.project')) || undefined,
  );
  const [error, setError] = useState<string | undefined>(undefined);

  const loadProjects = async (select?: number) => {
    try {
      const list = (await get<{ projects: Project[] }>('projects')).projects;
      setProjects(list);
      const wanted = select ?? projectId;
      setProjectId(list.some((p) => p.id === wanted) ? wanted : list[0]?.id);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  useEffect(() => {
    void loadProjects();
    const onHash = () => setPage(pageFromHash());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    if (projectId !== undefined) localStorage.setItem('kbqa.project', String(projectId));
  }, [projectId]);

  const project = projects?.find((p) => p.id === projectId);
  const needsProject = page !== 'projects';
  const main = useRef<HTMLElement>(null);
  // The page whose heading was shown last; null makes the first one take the focus too.
  const shown = useRef<PageId | null | undefined>(loggedIn ? null : undefined);
  // Layout effects: the title and the focus change with the page itself, not a frame later.
  useLayoutEffect(() => {
    document.title = `${PAGES.find(([p]) => p === page)?.[1] ?? ''} — kbqa dashboard`;
  }, [page]);
  // A screen reader hears the new page's heading, and Tab goes on from there, instead of the
  // focus staying on the link in the navigation (or on the body, once the login form is gone). A
  // page opened by loading the dashboard leaves the focus where the browser puts it.
  useLayoutEffect(() => {
    const heading = main.current?.querySelector('h1');
    if (!heading) return; // still loading the projects
    if (shown.current !== undefined && shown.current !== page) heading.focus();
    shown.current = page;
  });
  return (
    <>
      <header>
        <strong class="brand">kbqa</strong>
        <nav aria-label="Dashboard">
          {PAGES.map(([id, label]) => (
            <a href={`#/${id}`} aria-current={page === id ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span class="spacer" />
        {projects && projects.length > 0 && (
          <span class="project-picker">
            <label for="project">Project</label>
            <select
              id="project"
              value={projectId}
              onChange={(e) => setProjectId(Number(e.currentTarget.value))}
            >
              {projects.map((p) => (
                <option value={p.id}>{p.name}</option>
              ))}
            </select>
          </span>
        )}
        <button
          type="button"
          class="secondary"
          onClick={() => {
            void logout().finally(onLogout);
          }}
        >
          Log out
        </button>
      </header>
      <main ref={main}>
        {!projects ? (
          <Loading error={error} />
        ) : page === 'projects' ? (
          <ProjectsPage
            projects={projects}
            selected={project}
            onChanged={(id) => loadProjects(id)}
            onSelect={setProjectId}
          />
        ) : needsProject && !project ? (
          <section aria-label={PAGES.find(([p]) => p === page)?.[1]}>
            <h1 tabIndex={-1}>{PAGES.find(([p]) => p === page)?.[1]}</h1>
            <p>
              Create a project first, on the <a href="#/projects">Projects</a> page.
            </p>
          </section>
        ) : project ? (
          page === 'keys' ? (
            <KeysPage project={project} />
          ) : page === 'indexes' ? (
            <IndexesPage project={project} />
          ) : page === 'sources' ? (
            <SourcesPage project={project} />
          ) : page === 'teaching' ? (
            <TeachingPage project={project} />
          ) : page === 'conversations' ? (
            <ConversationsPage project={project} />
          ) : page === 'analytics' ? (
            <AnalyticsPage project={project} />
          ) : (
            <PlaygroundPage project={project} />
          )
        ) : null}
      </main>
    </>
  );
}

function App() {
  const [state, setState] = useState<'loading' | 'out' | 'in' | 'logged-in'>('loading');
  const loggedOut = () => setState('out');
  useEffect(() => {
    readSession().then(
      (s) => {
        if (s.logged_in) {
          setSession(s.csrf_token ?? '', loggedOut);
          setState('in');
        } else setState('out');
      },
      () => setState('out'),
    );
  }, []);
  if (state === 'loading') return <Loading />;
  if (state === 'out') {
    return (
      <Login
        onLogin={(csrf) => {
          setSession(csrf, loggedOut);
          setState('logged-in');
        }}
      />
    );
  }
  return <Shell onLogout={loggedOut} loggedIn={state === 'logged-in'} />;
}

render(<App />, document.getElementById('app') ?? document.body);
