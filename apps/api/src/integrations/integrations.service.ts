import { Injectable } from '@nestjs/common';
import { type IntegrationRecord, KbqaError } from '@kbqa/core';
import { ProjectsService } from '../projects/projects.service';
import { SecretBox } from '../tools/secret-box';
import { SECRET_MASK } from '../tools/tool-definition';
import { IntegrationsRepository, type Platform } from './integrations.repository';

export const PLATFORMS: readonly Platform[] = ['slack', 'discord'];

export interface SlackSettings {
  signingSecret: string;
  botToken: string;
}

export interface DiscordSettings {
  /** The application's Ed25519 public key, 64 hex digits. */
  publicKey: string;
  applicationId: string;
  botToken: string;
}

/** An integration as the operator API and the dashboard show it: secrets masked. */
export interface IntegrationView {
  platform: Platform;
  configured: boolean;
  /** Non-secret settings in full (Discord's public key and application id), secrets as ••••. */
  settings: Record<string, string>;
  /** The paths to give the platform, relative to the service's public URL. */
  endpoints: Record<string, string>;
  created_at: string | null;
  updated_at: string | null;
  /** When the last request with a valid signature arrived, and what it was. */
  last_event_at: string | null;
  last_event: string | null;
}

/** Which settings of a platform are secrets (stored sealed, shown masked). */
const SECRETS: Record<Platform, readonly string[]> = {
  slack: ['signing_secret', 'bot_token'],
  discord: ['bot_token'],
};

/**
 * The chat platforms configured per project (docs/integrations.md). Secrets are sealed with the
 * tools' SecretBox (KBQA_SECRET_KEY or the data directory's key file) and never shown again.
 */
@Injectable()
export class IntegrationsService {
  constructor(
    private readonly repository: IntegrationsRepository,
    private readonly projects: ProjectsService,
    private readonly box: SecretBox,
  ) {}

  async list(projectId: number): Promise<IntegrationView[]> {
    await this.projects.getProject(projectId);
    const rows = new Map((await this.repository.list(projectId)).map((r) => [r.platform, r]));
    return PLATFORMS.map((p) => view(projectId, p, rows.get(p)));
  }

  /** The configured integration; NOT_FOUND when the project or its configuration does not exist. */
  async show(projectId: number, platform: Platform): Promise<IntegrationView> {
    await this.projects.getProject(projectId);
    const row = await this.repository.get(projectId, platform);
    if (!row) throw notConfigured(projectId, platform);
    return view(projectId, platform, row);
  }

  async putSlack(projectId: number, s: SlackSettings): Promise<IntegrationView> {
    return this.put(projectId, 'slack', { signing_secret: s.signingSecret, bot_token: s.botToken });
  }

  async putDiscord(projectId: number, s: DiscordSettings): Promise<IntegrationView> {
    if (!/^[0-9a-fA-F]{64}$/.test(s.publicKey)) {
      throw new KbqaError('BAD_REQUEST', 'public_key must be the 64 hex digits Discord shows');
    }
    if (!/^\d{1,25}$/.test(s.applicationId)) {
      throw new KbqaError('BAD_REQUEST', 'application_id must be the numeric id Discord shows');
    }
    return this.put(projectId, 'discord', {
      public_key: s.publicKey.toLowerCase(),
      application_id: s.applicationId,
      bot_token: s.botToken,
    });
  }

  async remove(projectId: number, platform: Platform): Promise<void> {
    await this.projects.getProject(projectId);
    if (!(await this.repository.delete(projectId, platform))) throw notConfigured(projectId, platform);
  }

  /** Slack's settings with secrets opened, for verifying and answering; undefined when not configured. */
  async slack(projectId: number): Promise<SlackSettings | undefined> {
    const s = await this.opened(projectId, 'slack');
    return s && { signingSecret: s.signing_secret ?? '', botToken: s.bot_token ?? '' };
  }

  async discord(projectId: number): Promise<DiscordSettings | undefined> {
    const s = await this.opened(projectId, 'discord');
    return (
      s && {
        publicKey: s.public_key ?? '',
        applicationId: s.application_id ?? '',
        botToken: s.bot_token ?? '',
      }
    );
  }

  private async put(
    projectId: number,
    platform: Platform,
    plain: Record<string, string>,
  ): Promise<IntegrationView> {
    await this.projects.getProject(projectId);
    for (const [name, value] of Object.entries(plain)) {
      if (value.trim() === '') throw new KbqaError('BAD_REQUEST', `${name} must not be empty`);
    }
    const stored = Object.fromEntries(
      Object.entries(plain).map(([k, v]) => [
        k,
        SECRETS[platform].includes(k) ? this.box.seal(v.trim()) : v.trim(),
      ]),
    );
    await this.repository.put(projectId, platform, stored);
    return this.show(projectId, platform);
  }

  private async opened(projectId: number, platform: Platform): Promise<Record<string, string> | undefined> {
    const row = await this.repository.get(projectId, platform);
    if (!row) return undefined;
    return Object.fromEntries(
      Object.entries(row.settings).map(([k, v]) => [k, SECRETS[platform].includes(k) ? this.box.open(v) : v]),
    );
  }
}

function notConfigured(projectId: number, platform: Platform): KbqaError {
  return new KbqaError('NOT_FOUND', `project ${projectId} has no ${platform} integration`);
}

function view(projectId: number, platform: Platform, row: IntegrationRecord | undefined): IntegrationView {
  const endpoints: Record<string, string> =
    platform === 'slack'
      ? {
          events: `/integrations/slack/${projectId}/events`,
          commands: `/integrations/slack/${projectId}/commands`,
        }
      : { interactions: `/integrations/discord/${projectId}/interactions` };
  return {
    platform,
    configured: row !== undefined,
    settings: row
      ? Object.fromEntries(
          Object.entries(row.settings).map(([k, v]) => [k, SECRETS[platform].includes(k) ? SECRET_MASK : v]),
        )
      : {},
    endpoints,
    created_at: row?.createdAt ?? null,
    updated_at: row?.updatedAt ?? null,
    last_event_at: row?.lastEventAt ?? null,
    last_event: row?.lastEvent ?? null,
  };
}
