import { useState } from 'preact/hooks';
import { del, get, put } from '../api';
import { when } from '../format';
import type { Integration, Project } from '../types';
import { DangerButton, Loading, Notice, useLoad, useNotice } from '../ui';

/** The fields each platform is configured with (docs/integrations.md); secrets are write-only. */
const FIELDS: Record<Integration['platform'], Array<{ name: string; label: string; secret: boolean }>> = {
  slack: [
    { name: 'signing_secret', label: 'Signing secret', secret: true },
    { name: 'bot_token', label: 'Bot token (xoxb-…)', secret: true },
  ],
  discord: [
    { name: 'public_key', label: 'Public key', secret: false },
    { name: 'application_id', label: 'Application id', secret: false },
    { name: 'bot_token', label: 'Bot token', secret: true },
  ],
};

const NAMES: Record<Integration['platform'], string> = { slack: 'Slack', discord: 'Discord' };

/**
 * Slack and Discord of a project: whether each is configured, the URLs to give the platform, the
 * last request it sent, and a form to configure or replace it. Secrets are never shown again.
 */
export function IntegrationsPanel({ project }: { project: Project }) {
  const list = useLoad(
    () => get<{ integrations: Integration[] }>(`projects/${project.id}/integrations`),
    [project.id],
  );
  const [editing, setEditing] = useState<Integration['platform'] | undefined>(undefined);
  const [values, setValues] = useState<Record<string, string>>({});
  const [notice, run] = useNotice();
  const origin = location.origin;
  return (
    <div class="integrations">
      <h2>Chat platforms</h2>
      <Notice notice={notice} />
      {!list.data ? (
        <Loading error={list.error} />
      ) : (
        <ul class="integration-list" aria-label="Chat platforms">
          {list.data.integrations.map((i) => (
            <li class="card">
              <strong>{NAMES[i.platform]}</strong>: {i.configured ? 'configured' : 'not configured'}
              {'; last event: '}
              {i.last_event_at ? `${i.last_event ?? 'event'}, ${when(i.last_event_at)}` : 'none yet'}
              <div>
                URLs to give {NAMES[i.platform]}:{' '}
                {Object.entries(i.endpoints).map(([name, path]) => (
                  <span>
                    {name} <code>{`${origin}${path}`}</code>{' '}
                  </span>
                ))}
              </div>
              <button
                type="button"
                onClick={() => {
                  setValues(i.configured ? { ...i.settings } : {});
                  setEditing(i.platform);
                }}
              >
                {i.configured ? `Replace ${NAMES[i.platform]} settings` : `Configure ${NAMES[i.platform]}`}
              </button>{' '}
              {i.configured && (
                <DangerButton
                  name={`Remove ${NAMES[i.platform]}`}
                  label="Remove"
                  onClick={() => {
                    void run(async () => {
                      await del(`projects/${project.id}/integrations/${i.platform}`);
                      list.reload();
                      return `${NAMES[i.platform]} removed.`;
                    });
                  }}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      {editing && (
        <form
          class="card"
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => {
              const body = Object.fromEntries(FIELDS[editing].map((f) => [f.name, values[f.name] ?? '']));
              await put(`projects/${project.id}/integrations/${editing}`, body);
              setEditing(undefined);
              setValues({});
              list.reload();
              return `${NAMES[editing]} saved.`;
            });
          }}
        >
          {FIELDS[editing].map((f) => (
            <div>
              <label for={`integration-${f.name}`}>{f.label}</label>
              <input
                id={`integration-${f.name}`}
                type={f.secret ? 'password' : 'text'}
                autoComplete="off"
                required
                value={
                  f.secret
                    ? values[f.name] === '••••'
                      ? ''
                      : (values[f.name] ?? '')
                    : (values[f.name] ?? '')
                }
                onInput={(e) => setValues({ ...values, [f.name]: e.currentTarget.value })}
              />
            </div>
          ))}
          <button type="submit">Save {NAMES[editing]}</button>{' '}
          <button type="button" onClick={() => setEditing(undefined)}>
            Cancel
          </button>
        </form>
      )}
    </div>
  );
}
