import { useState } from 'preact/hooks';
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
  const [openId, setOpenId] = useState<number | undefined>(undefined);
  const params = new URLSearchParams({ limit: '100' });
  if (from) params.set('from', from);
  if (to) params.set('to', to);
  if (rating) params.set('rating', rating);
  const list = useLoad(
    () =>
      get<{ total: number; conversations: ConversationRow[] }>(
        `projects/${project.id}/conversations?${params.toString()}`,
      ),
    [project.id, from, to, rating],
  );
  return (
    <Section title={`Conversations of ${project.name}`}>
      <form class="inline" onSubmit={(e) => e.preventDefault()}>
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
                    type="button"
                    aria-label={`Open conversation ${c.id}`}
                    onClick={() => setOpenId(c.id)}
                  >
                    Open
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {openId !== undefined && <Conversation id={openId} />}
    </Section>
  );
}

const RATING_TEXT: Record<number, string> = { 1: 'rated good', [-1]: 'rated bad', 0: 'not rated' };

function Conversation({ id }: { id: number }) {
  const detail = useLoad(() => get<ConversationDetail>(`conversations/${id}`), [id]);
  if (!detail.data) return <Loading error={detail.error} />;
  return (
    <section aria-label={`Conversation ${id}`} class="card">
      <h2>Conversation {id}</h2>
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
