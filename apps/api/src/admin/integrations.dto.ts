import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { SECRET_MASK } from '../tools/tool-definition';
import type { IntegrationView } from '../integrations/integrations.service';

/** `PUT /admin/v1/projects/:id/integrations/slack`: the Slack app's secrets (Basic Information, OAuth). */
export class PutSlackIntegrationDto {
  @ApiProperty({
    description: "the app's Signing Secret (Basic Information); stored sealed, never shown again",
  })
  @IsString({ message: 'signing_secret must be a string' })
  @MinLength(1, { message: 'signing_secret must not be empty' })
  @MaxLength(500)
  signing_secret!: string;

  @ApiProperty({
    example: 'xoxb-…',
    description: 'the Bot User OAuth Token; stored sealed, never shown again',
  })
  @IsString({ message: 'bot_token must be a string' })
  @MinLength(1, { message: 'bot_token must not be empty' })
  @MaxLength(500)
  bot_token!: string;
}

/** `PUT /admin/v1/projects/:id/integrations/discord`: the Discord application's settings. */
export class PutDiscordIntegrationDto {
  @ApiProperty({
    pattern: '^[0-9a-fA-F]{64}$',
    description: "the application's Public Key (General Information)",
  })
  @IsString({ message: 'public_key must be a string' })
  public_key!: string;

  @ApiProperty({ example: '1234567890123456789', description: "the application's id (General Information)" })
  @IsString({ message: 'application_id must be a string' })
  application_id!: string;

  @ApiProperty({ description: "the bot's token (Bot); stored sealed, never shown again" })
  @IsString({ message: 'bot_token must be a string' })
  @MinLength(1, { message: 'bot_token must not be empty' })
  @MaxLength(500)
  bot_token!: string;
}

/** An integration as the operator sees it: secrets masked. */
export class IntegrationResponse implements IntegrationView {
  @ApiProperty({ enum: ['slack', 'discord'] })
  platform!: 'slack' | 'discord';

  @ApiProperty()
  configured!: boolean;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: `the settings; secrets (signing_secret, bot_token) as "${SECRET_MASK}"`,
    example: { signing_secret: SECRET_MASK, bot_token: SECRET_MASK },
  })
  settings!: Record<string, string>;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: "paths to give the platform, after the service's public URL",
    example: { events: '/integrations/slack/1/events', commands: '/integrations/slack/1/commands' },
  })
  endpoints!: Record<string, string>;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  created_at!: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  updated_at!: string | null;

  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'when the last request with a valid signature arrived',
  })
  last_event_at!: string | null;

  @ApiProperty({ nullable: true, type: String, example: 'app_mention' })
  last_event!: string | null;
}

export class IntegrationListResponse {
  @ApiProperty({ type: [IntegrationResponse] })
  integrations!: IntegrationResponse[];
}
