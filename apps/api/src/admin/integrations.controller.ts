import { Body, Delete, Get, Param, Put } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { IntegrationsService } from '../integrations/integrations.service';
import { ErrorResponse, IdParams } from './admin.dto';
import { AdminController } from './admin.guard';
import {
  IntegrationListResponse,
  IntegrationResponse,
  PutDiscordIntegrationDto,
  PutSlackIntegrationDto,
} from './integrations.dto';
import { DeletedResponse } from './sources.dto';

/** Slack and Discord per project (docs/integrations.md); secrets are never returned. */
@AdminController('integrations')
export class AdminIntegrationsController {
  constructor(private readonly integrations: IntegrationsService) {}

  @Get('projects/:id/integrations')
  @ApiOperation({ summary: "Both chat platforms of a project: configured or not, and each one's last event" })
  @ApiOkResponse({ type: IntegrationListResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async list(@Param() { id }: IdParams): Promise<IntegrationListResponse> {
    return { integrations: await this.integrations.list(id) };
  }

  @Get('projects/:id/integrations/slack')
  @ApiOperation({ summary: "The project's Slack app (secrets masked)" })
  @ApiOkResponse({ type: IntegrationResponse })
  @ApiNotFoundResponse({ type: ErrorResponse, description: 'no such project, or Slack is not configured' })
  showSlack(@Param() { id }: IdParams): Promise<IntegrationResponse> {
    return this.integrations.show(id, 'slack');
  }

  @Put('projects/:id/integrations/slack')
  @ApiOperation({ summary: 'Configure (or replace) the Slack app answering for the project' })
  @ApiOkResponse({ type: IntegrationResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  putSlack(@Param() { id }: IdParams, @Body() dto: PutSlackIntegrationDto): Promise<IntegrationResponse> {
    return this.integrations.putSlack(id, { signingSecret: dto.signing_secret, botToken: dto.bot_token });
  }

  @Delete('projects/:id/integrations/slack')
  @ApiOperation({ summary: 'Remove the Slack app: its requests are refused from then on' })
  @ApiOkResponse({ type: DeletedResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async deleteSlack(@Param() { id }: IdParams): Promise<DeletedResponse> {
    await this.integrations.remove(id, 'slack');
    return { deleted: 1 };
  }

  @Get('projects/:id/integrations/discord')
  @ApiOperation({ summary: "The project's Discord application (bot token masked)" })
  @ApiOkResponse({ type: IntegrationResponse })
  @ApiNotFoundResponse({ type: ErrorResponse, description: 'no such project, or Discord is not configured' })
  showDiscord(@Param() { id }: IdParams): Promise<IntegrationResponse> {
    return this.integrations.show(id, 'discord');
  }

  @Put('projects/:id/integrations/discord')
  @ApiOperation({ summary: 'Configure (or replace) the Discord application answering for the project' })
  @ApiOkResponse({ type: IntegrationResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  putDiscord(@Param() { id }: IdParams, @Body() dto: PutDiscordIntegrationDto): Promise<IntegrationResponse> {
    return this.integrations.putDiscord(id, {
      publicKey: dto.public_key,
      applicationId: dto.application_id,
      botToken: dto.bot_token,
    });
  }

  @Delete('projects/:id/integrations/discord')
  @ApiOperation({ summary: 'Remove the Discord application: its interactions are refused from then on' })
  @ApiOkResponse({ type: DeletedResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async deleteDiscord(@Param() { id }: IdParams): Promise<DeletedResponse> {
    await this.integrations.remove(id, 'discord');
    return { deleted: 1 };
  }
}
