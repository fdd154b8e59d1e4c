import { KbqaError } from '@kbqa/core';
import type { AppConfig } from './config/config';
import { ASK_COMMAND } from './integrations/discord';
import type { IntegrationsService } from './integrations/integrations.service';
import { PlatformClient } from './integrations/platform-client';

/**
 * `kbqa integrations discord register --project <id>`: registers (or updates) the `/ask` command
 * of the project's Discord application with its bot token. POST upserts the one command by name,
 * leaving the application's other commands alone; global commands reach every server the bot
 * is in.
 */
export async function registerDiscordCommand(
  config: AppConfig,
  integrations: IntegrationsService,
  projectId: number,
): Promise<{ text: string; json: unknown }> {
  const discord = await integrations.discord(projectId);
  if (!discord) {
    throw new KbqaError(
      'NOT_FOUND',
      `project ${projectId} has no discord integration: configure it first (PUT /admin/v1/projects/${projectId}/integrations/discord)`,
    );
  }
  const client = new PlatformClient(config.integrations);
  const created = (await client.discord(
    'POST',
    `/applications/${encodeURIComponent(discord.applicationId)}/commands`,
    ASK_COMMAND,
    discord.botToken,
  )) as { id?: string } | undefined;
  return {
    text: `registered /${ASK_COMMAND.name} for Discord application ${discord.applicationId}${created?.id ? ` (command ${created.id})` : ''}`,
    json: { application_id: discord.applicationId, command: ASK_COMMAND.name, id: created?.id ?? null },
  };
}
