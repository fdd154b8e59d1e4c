import { Body, Delete, Get, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ProjectsService } from '../projects/projects.service';
import { ErrorResponse, IdParams } from './admin.dto';
import { AdminController } from './admin.guard';
import {
  CreatedKeyResponse,
  CreateKeyDto,
  KeyListResponse,
  KeyResponse,
  mapCreatedKey,
  mapKey,
} from './keys.dto';

/** A project's API keys: create (shown once), list, revoke. */
@AdminController('keys')
export class AdminKeysController {
  constructor(private readonly projects: ProjectsService) {}

  @Post('projects/:id/keys')
  @ApiOperation({ summary: 'Create an API key for a project; the answer is the only place it is shown' })
  @ApiCreatedResponse({ type: CreatedKeyResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async create(@Param() { id }: IdParams, @Body() dto: CreateKeyDto): Promise<CreatedKeyResponse> {
    return mapCreatedKey(await this.projects.createKey(id, dto.kind));
  }

  @Get('projects/:id/keys')
  @ApiOperation({ summary: "List a project's keys, revoked ones included (never the key or its hash)" })
  @ApiOkResponse({ type: KeyListResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async list(@Param() { id }: IdParams): Promise<KeyListResponse> {
    return { keys: (await this.projects.listKeys(id)).map(mapKey) };
  }

  @Delete('keys/:id')
  @ApiOperation({ summary: 'Revoke a key (revoking it again answers the same)' })
  @ApiOkResponse({ type: KeyResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async revoke(@Param() { id }: IdParams): Promise<KeyResponse> {
    return mapKey(await this.projects.revokeKey(id));
  }
}
