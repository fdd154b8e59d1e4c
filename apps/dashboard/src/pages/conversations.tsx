import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { get } from '../api';
import { citedAnswerHtml, when } from '../format';
import type { ConversationDetail, ConversationRow, Project } from '../types';
import { CitedPages, Table, Loading, Section, useLoad } from '../ui';

const RATINGS: Array<[string, string]> = [
  ['', 'Any'],
  ['good', 'Rated good'],
  ['bad', 'Rated bad'],
  ['unrated', 'Unrated'],
];

export function ConversationsPage({ project }: { project: Project }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [rating, setRating] = useState('');
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const [openId, setOpenId] = useState<number | undefined>(undefined);
  // The conversation just closed: the focus goes back to its Open button, where the reader was.
  const [closed, setClosed] = useState<number | undefined>(undefined);
  useLayoutEffect(() => {
    if (closed !== undefined) document.getElementById(`open-conversation-${closed}`)?.focus();
  }, [closed]);
  // Typing searches after a short pause rather than on every key.
  useEffect(() => {
    const timer = setTimeout(() => setSearch(query.trim()), 250);
    return () => clearTimeout(timer);
  }, [query]);
  const params = new URLSearchParams({ limit: '100' });
  if (from) params.set('from', from);
  if (to) params.set('to', to);
  if (rating) params.set('rating', rating);
  if (search) params.set('q', search);
  const list = useLoad(
    () =>
      get<{ total: number; conversations: ConversationRow[] }>(
        `projects/${project.id}/conversations?${params.toString()}`,
      ),
    [project.id, from, to, rating, search],
  );
  const close = () => {
    setClosed(openId);
    setOpenId(undefined);
  };
  return (
    <Section title={`Conversations of ${project.name}`}>
      {/* Wide screens show an open conversation beside the list; phones show it instead of the list. */}
      <div class={openId === undefined ? 'split' : 'split open'}>
        <div class="split-list">
          <form class="inline" role="search" onSubmit={(e) => e.preventDefault()}>
            <label for="conv-search">Search messages</label>
            <input
              id="conv-search"
              type="search"
              value={query}
              onInput={(e) => setQuery(e.currentTarget.value)}
            />
            <label for="conv-from">From</label>
            <input id="conv-from" type="date" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
            <label for="conv-to">To</label>
            <input id="conv-to" type="date" value={to} onChange={(e) => setTo(e.currentTarget.value)} />
            <label for="conv-rating">Rating</label>
            <select id="conv-rating" value={rating} onChange={(e) => setRating(e.currentTarget.value)}>
              {RATINGS.map(([value, label]) => (
                <option value={value}>{label}</option>
              ))}
            </select>
          </form>
          {!list.data ? (
            <Loading error={list.error} />
          ) : list.data.conversations.length === 0 ? (
            <p class="muted">No conversation matches.</p>
          ) : (
            <>
              <p class="muted">
                {list.data.total} conversation{list.data.total === 1 ? '' : 's'}
                {list.data.total > list.data.conversations.length &&
                  `, the newest ${list.data.conversations.length} shown`}
              </p>
              <Table
                label="Conversation list"
                columns={['Started', 'First question', 'Messages', 'Good', 'Bad', 'Ended', '']}
              >
                <tbody>
                  {list.data.conversations.map((c) => (
                    <tr aria-selected={c.id === openId}>
                      <td>{when(c.created_at)}</td>
                      <td>{c.first_question ?? '—'}</td>
                      <td>{c.messages}</td>
                      <td>{c.good}</td>
                      <td>{c.bad}</td>
                      <td>{when(c.ended_at)}</td>
                      <td>
                        <button
                          id={`open-conversation-${c.id}`}
                          type="button"
                          aria-label={`Open conversation ${c.id}`}
                          onClick={() => {
                            setClosed(undefined);
                            setOpenId(c.id);
                          }}
                        >
                          Open
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </>
          )}
        </div>
        {openId !== undefined && <Conversation key={openId} id={openId} onClose={close} />}
      </div>
    </Section>
  );
}

const RATING_TEXT: Record<number, string> = { 1: 'rated good', [-1]: 'rated bad', 0: 'not rated' };

/**
 * One conversation, in a panel beside the list or, on a phone, in the list's place. It takes the
 * focus when it opens, so a screen reader reads it and Tab goes on inside it; Escape or the back
 * button closes it.
 */
function Conversation({ id, onClose }: { id: number; onClose: () => void }) {
  const detail = useLoad(() => get<ConversationDetail>(`conversations/${id}`), [id]);
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => heading.current?.focus(), []);
  return (
    <section
      aria-label={`Conversation ${id}`}
      class="card split-panel"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}
    >
      <p class="back">
        <button type="button" class="secondary" onClick={onClose}>
          <span aria-hidden="true">← </span>Back to the list
        </button>
      </p>
      <h2 ref={heading} tabIndex={-1}>
        Conversation {id}
      </h2>
      {!detail.data ? (
        <Loading error={detail.error} />
      ) : (
        <>
          <p class="muted">
            Started {when(detail.data.created_at)}
            {detail.data.ended_at && `, ended ${when(detail.data.ended_at)}`}
          </p>
          <ol class="messages">
            {detail.data.messages.map((m) => (
              <li class={m.role === 'AI' ? 'ai' : 'human'}>
                <strong>{m.role === 'AI' ? 'Answer' : 'Question'}</strong>{' '}
                <span class="muted">{when(m.created_at)}</span>
                {m.role === 'AI' ? <StoredAnswer message={m} /> : <p>{m.text}</p>}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

/**
 * A stored answer with its citations renumbered by page. Stored sources keep no text, so the links
 * go to the pages without text fragments; a page shows the best relevance score of its passages.
 */
function StoredAnswer({ message }: { message: ConversationDetail['messages'][number] }) {
  const cited = citedAnswerHtml(message.text, message.sources, false);
  const best = (n: number[]) =>
    Math.max(...n.map((i) => message.sources[i - 1]?.relevance_score ?? Number.NEGATIVE_INFINITY));
  return (
    <>
      <div class="markdown" dangerouslySetInnerHTML={{ __html: cited.html }} />
      <p class="muted">{RATING_TEXT[message.rating] ?? ''}</p>
      {cited.pages.length > 0 && (
        <CitedPages
          pages={cited.pages}
          note={(page) => {
            const score = best(page.sources);
            return Number.isFinite(score) ? ` (${score.toFixed(2)})` : '';
          }}
        />
      )}
    </>
  );
}
