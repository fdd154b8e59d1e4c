import { useState } from 'preact/hooks';
import { del, get, post } from '../api';
import { when } from '../format';
import type { Key, Project } from '../types';
import { DangerButton, Table, Loading, Notice, Section, useLoad, useNotice } from '../ui';
import { IntegrationsPanel } from './integrations';

export function KeysPage({ project }: { project: Project }) {
  const keys = useLoad(() => get<{ keys: Key[] }>(`projects/${project.id}/keys`), [project.id]);
  const [kind, setKind] = useState<'server' | 'anon'>('server');
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const [notice, run] = useNotice();
  return (
    <Section title={`Keys of ${project.name}`}>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            const created = await post<{ key: string }>(`projects/${project.id}/keys`, { kind });
            setSecret(created.key);
            keys.reload();
            return undefined;
          });
        }}
      >
        <label for="key-kind">Key kind</label>
        <select
          id="key-kind"
          value={kind}
          onChange={(e) => setKind(e.currentTarget.value as 'server' | 'anon')}
        >
          <option value="server">Server key (every endpoint)</option>
          <option value="anon">Anon key (chat only, for browsers)</option>
        </select>
        <button type="submit">Create key</button>
      </form>
      {secret && (
        <div class="card secret">
          <label for="new-key">New key (shown once; copy it now)</label>
          <input id="new-key" readOnly value={secret} />
          <button
            type="button"
            onClick={() => {
              void run(async () => {
                await navigator.clipboard.writeText(secret);
                return 'Key copied to the clipboard.';
              });
            }}
          >
            Copy key
          </button>
        </div>
      )}
      <Notice notice={notice} />
      {!keys.data ? (
        <Loading error={keys.error} />
      ) : (
        <Table label="Key list" columns={['Prefix', 'Kind', 'Created', 'Last used', 'Status', '']}>
          <tbody>
            {keys.data.keys.map((k) => (
              <tr>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>{k.kind}</td>
                <td>{when(k.created_at)}</td>
                <td>{k.last_used_at ? when(k.last_used_at) : 'never'}</td>
                <td>{k.revoked ? 'revoked' : 'active'}</td>
                <td>
                  {!k.revoked && (
                    <DangerButton
                      name={`Revoke ${k.prefix}`}
                      label="Revoke"
                      onClick={() => {
                        void run(async () => {
                          await del(`keys/${k.id}`);
                          keys.reload();
                          return `Revoked ${k.prefix}….`;
                        });
                      }}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <IntegrationsPanel project={project} />
    </Section>
  );
}
