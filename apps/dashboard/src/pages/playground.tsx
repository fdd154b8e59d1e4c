import { useState } from 'preact/hooks';
import { post, put, readChatStream, request, type StreamedSource } from '../api';
import { citedAnswerHtml, spokenText } from '../format';
import type { Project } from '../types';
import { CitedPages, Notice, Section, useNotice } from '../ui';

interface Turn {
  question: string;
  answer: string;
  sources: StreamedSource[];
  messageId?: number;
  rating: number;
  error?: string;
}

/** Asks the project as the public API answers (serviceChat, streamed), in one conversation. */
export function PlaygroundPage({ project }: { project: Project }) {
  const [question, setQuestion] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [conversationId, setConversationId] = useState<number | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [notice, run] = useNotice();
  // The answer is read out once it is complete, not token by token as it streams in.
  const [said, setSaid] = useState('');

  const update = (index: number, change: (t: Turn) => Turn) =>
    setTurns((all) => all.map((t, i) => (i === index ? change(t) : t)));

  const ask = async (text: string) => {
    setBusy(true);
    const index = turns.length;
    const history = turns.filter((t) => !t.error).map((t) => ({ prompt: t.question, response: t.answer }));
    setTurns((all) => [...all, { question: text, answer: '', sources: [], rating: 0 }]);
    setSaid('');
    let answer = '';
    try {
      let conversation = conversationId;
      if (conversation === undefined) {
        conversation = (await post<{ conversation_id: number }>(`projects/${project.id}/conversations`))
          .conversation_id;
        setConversationId(conversation);
      }
      const res = await request('POST', `/admin/v1/projects/${project.id}/chat`, {
        question: text,
        conversation_id: conversation,
        history,
      });
      for await (const event of readChatStream(res)) {
        if (event.kind === 'sources') update(index, (t) => ({ ...t, sources: event.sources }));
        else if (event.kind === 'text') {
          answer += event.text;
          update(index, (t) => ({ ...t, answer: t.answer + event.text }));
        } else if (event.kind === 'message') update(index, (t) => ({ ...t, messageId: event.id }));
        else update(index, (t) => ({ ...t, error: event.message }));
      }
      setSaid(`Answer ${index + 1}: ${spokenText(answer)}`);
    } catch (e) {
      update(index, (t) => ({ ...t, error: e instanceof Error ? e.message : String(e) }));
    } finally {
      setBusy(false);
    }
  };

  const rate = (index: number, turn: Turn, value: number) =>
    run(async () => {
      if (turn.messageId === undefined) return;
      const next = turn.rating === value ? 0 : value;
      await put(`projects/${project.id}/messages/${turn.messageId}/rating`, { rating_value: next });
      update(index, (t) => ({ ...t, rating: next }));
      return next === 0 ? 'Rating cleared.' : `Rated ${next > 0 ? 'good' : 'bad'}.`;
    });

  return (
    <Section title={`Playground of ${project.name}`}>
      <ol class="messages" aria-label="Conversation">
        {turns.map((t, i) => {
          // Renumbered at every render, while streaming too: numbers shown never change as it grows.
          const cited = citedAnswerHtml(t.answer, t.sources, true);
          return (
            <li>
              <p class="human">
                <strong>Question</strong> {t.question}
              </p>
              <div
                class="ai"
                aria-label={`Answer ${i + 1}`}
                role="region"
                aria-busy={busy && i === turns.length - 1}
              >
                <div class="markdown" dangerouslySetInnerHTML={{ __html: cited.html }} />
                {t.error && (
                  <p class="notice error" role="alert">
                    {t.error}
                  </p>
                )}
                {cited.pages.length > 0 && (
                  <>
                    <h2 class="small">Sources</h2>
                    <CitedPages pages={cited.pages} />
                  </>
                )}
                {t.messageId !== undefined && (
                  <p class="rating">
                    <button
                      type="button"
                      class="secondary"
                      aria-pressed={t.rating === 1}
                      aria-label="Good answer"
                      onClick={() => void rate(i, t, 1)}
                    >
                      Good
                    </button>
                    <button
                      type="button"
                      class="secondary"
                      aria-pressed={t.rating === -1}
                      aria-label="Bad answer"
                      onClick={() => void rate(i, t, -1)}
                    >
                      Bad
                    </button>
                  </p>
                )}
              </div>
            </li>
          );
        })}
      </ol>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const text = question.trim();
          if (!text || busy) return;
          setQuestion('');
          void ask(text);
        }}
      >
        <label for="playground-question">Question</label>
        <textarea
          id="playground-question"
          rows={2}
          value={question}
          onInput={(e) => setQuestion(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              e.currentTarget.form?.requestSubmit();
            }
          }}
        />
        <button type="submit" disabled={busy}>
          Ask
        </button>{' '}
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setTurns([]);
            setConversationId(undefined);
          }}
        >
          New conversation
        </button>
      </form>
      <Notice notice={notice} />
      <p class="visually-hidden" role="status" aria-live="polite">
        {said}
      </p>
    </Section>
  );
}
