import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { del, get } from '../api';
import { when } from '../format';
import type { IndexRow, Project, SourceRow } from '../types';
import { DangerButton, Table, Loading, Notice, Section, useLoad, useNotice } from '../ui';

const PAGE = 50;

export function SourcesPage({ project }: { project: Project }) {
  const indexes = useLoad(() => get<{ indexes: IndexRow[] }>(`projects/${project.id}/indexes`), [project.id]);
  const [indexId, setIndexId] = useState('');
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const [offset, setOffset] = useState(0);
  const [notice, run] = useNotice();
  // The source whose Delete was pressed once: it goes only when that is confirmed.
  const [confirming, setConfirming] = useState<number | undefined>(undefined);
  // After Cancel the focus goes back to the Delete button it came from, not to the page's top.
  const [cancelled, setCancelled] = useState<number | undefined>(undefined);
  useLayoutEffect(() => {
    if (cancelled !== undefined) document.getElementById(`delete-source-${cancelled}`)?.focus();
  }, [cancelled]);
  // Typing searches after a short pause rather than on every key.
  useEffect(() => {
    const timer = setTimeout(() => {
      setSearch(query.trim());
      setOffset(0);
    }, 250);
    return () => clearTimeout(timer);
  }, [query]);
  const params = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (indexId) params.set('index_id', indexId);
  if (search) params.set('q', search);
  const sources = useLoad(
    () => get<{ total: number; sources: SourceRow[] }>(`projects/${project.id}/sources?${params.toString()}`),
    [project.id, indexId, search, offset],
  );
  return (
    <Section title={`Sources of ${project.name}`}>
      <form class="inline" onSubmit={(e) => e.preventDefault()}>
        <label for="source-index">Index</label>
        <select
          id="source-index"
          value={indexId}
          onChange={(e) => {
            setIndexId(e.currentTarget.value);
            setOffset(0);
          }}
        >
          <option value="">All sources</option>
          {indexes.data?.indexes.map((ix) => (
            <option value={String(ix.id)}>
              {ix.type}: {ix.url}
            </option>
          ))}
        </select>
        <label for="source-search">Search sources</label>
        <input
          id="source-search"
          type="search"
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
      </form>
      <Notice notice={notice} />
      {!sources.data ? (
        <Loading error={sources.error} />
      ) : (
        <>
          <p class="muted">
            {sources.data.total} source{sources.data.total === 1 ? '' : 's'}
            {sources.data.total > PAGE &&
              `, ${offset + 1}–${Math.min(offset + PAGE, sources.data.total)} shown`}
          </p>
          <Table label="Source list" columns={['Source', 'Kind', 'Chunks', 'Updated', '']}>
            <tbody>
              {sources.data.sources.map((s) => (
                <tr>
                  <td class="url">
                    {/^https?:\/\//.test(s.source) ? (
                      <a href={s.source} target="_blank" rel="noopener noreferrer">
                        {s.title ?? s.source}
                      </a>
                    ) : (
                      (s.title ?? s.source)
                    )}
                    {s.title && <div class="muted address">{s.source}</div>}
                    {s.version !== null && <div class="muted">version {s.version}</div>}
                  </td>
                  <td>{s.kind}</td>
                  <td>{s.chunks}</td>
                  <td>{when(s.updated_at)}</td>
                  <td class="actions">
                    {confirming === s.id ? (
                      <ConfirmDelete
                        source={s}
                        onCancel={() => {
                          setConfirming(undefined);
                          setCancelled(s.id);
                        }}
                        onConfirm={() => {
                          setConfirming(undefined);
                          void run(async () => {
                            await del(`sources/${s.id}`);
                            sources.reload();
                            return `Deleted ${s.source}.`;
                          });
                        }}
                      />
                    ) : (
                      <DangerButton
                        id={`delete-source-${s.id}`}
                        name={`Delete source ${s.source}`}
                        label="Delete"
                        onClick={() => {
                          setCancelled(undefined);
                          setConfirming(s.id);
                        }}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
          <p>
            <button
              type="button"
              class="secondary"
              disabled={offset === 0}
              onClick={() => setOffset(Math.max(0, offset - PAGE))}
            >
              Previous
            </button>{' '}
            <button
              type="button"
              class="secondary"
              disabled={offset + PAGE >= sources.data.total}
              onClick={() => setOffset(offset + PAGE)}
            >
              Next
            </button>
          </p>
        </>
      )}
    </Section>
  );
}

/**
 * The second step of deleting a source, in its row: the page's passages go from every answer at
 * once and come back only with a new ingestion. It takes the focus, so Enter or Escape decides.
 */
function ConfirmDelete(props: { source: SourceRow; onConfirm: () => void; onCancel: () => void }) {
  const { source, onConfirm, onCancel } = props;
  const yes = useRef<HTMLButtonElement>(null);
  useEffect(() => yes.current?.focus(), []);
  return (
    <span
      role="group"
      aria-label={`Delete ${source.title ?? source.source}?`}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onCancel();
      }}
    >
      <span>Delete it? </span>
      <button
        ref={yes}
        type="button"
        class="danger"
        aria-label={`Yes, delete source ${source.source}`}
        onClick={onConfirm}
      >
        Yes, delete
      </button>{' '}
      <button type="button" class="secondary" onClick={onCancel}>
        Cancel
      </button>
    </span>
  );
}
