import { useState } from 'preact/hooks';
import { del, get, post } from '../api';
import { when } from '../format';
import type { Project, Taught } from '../types';
import { DangerButton, Table, Loading, Notice, Section, useLoad, useNotice } from '../ui';

export function TeachingPage({ project }: { project: Project }) {
  const taught = useLoad(() => get<{ taught: Taught[] }>(`projects/${project.id}/taught`), [project.id]);
  const [question, setQuestion] = useState('');
  const [answer, setAnswer] = useState('');
  const [notice, run] = useNotice();
  return (
    <Section title={`Teaching of ${project.name}`}>
      <p class="muted">
        A taught answer is used first, and cited, when a reader asks a question close to its question.
        Deleting all sources (deleteSource with delete_all) keeps taught answers.
      </p>
      <form
        class="grid"
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            await post(`projects/${project.id}/taught`, { question, answer });
            setQuestion('');
            setAnswer('');
            taught.reload();
            return 'Taught answer added.';
          });
        }}
      >
        <label for="taught-question">Question</label>
        <input
          id="taught-question"
          required
          value={question}
          onInput={(e) => setQuestion(e.currentTarget.value)}
        />
        <label for="taught-answer">Answer</label>
        <textarea
          id="taught-answer"
          required
          rows={4}
          value={answer}
          onInput={(e) => setAnswer(e.currentTarget.value)}
        />
        <span />
        <button type="submit">Add taught answer</button>
      </form>
      <Notice notice={notice} />
      {!taught.data ? (
        <Loading error={taught.error} />
      ) : taught.data.taught.length === 0 ? (
        <p class="muted">Nothing taught yet.</p>
      ) : (
        <Table label="Taught answer list" columns={['Question', 'Answer', 'Added', '']}>
          <tbody>
            {taught.data.taught.map((t) => (
              <tr>
                <td>{t.question}</td>
                <td class="prewrap">{t.answer}</td>
                <td>{when(t.created_at)}</td>
                <td>
                  <DangerButton
                    name={`Delete taught answer ${t.question}`}
                    label="Delete"
                    onClick={() => {
                      void run(async () => {
                        await del(`taught/${t.id}`);
                        taught.reload();
                        return 'Taught answer deleted.';
                      });
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Section>
  );
}
