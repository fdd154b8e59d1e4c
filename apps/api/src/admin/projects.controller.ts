import { Body, Get, Param, Patch, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import { ProjectsService } from '../projects/projects.service';
import { ErrorResponse, IdParams } from './admin.dto';
import { AdminController } from './admin.guard';
import {
  CreateProjectDto,
  mapProject,
  ProjectListResponse,
  ProjectResponse,
  UpdateProjectDto,
} from './projects.dto';

/** `/admin/v1/projects`: create, list, show, rename, switch the message export. */
@AdminController('projects')
export class AdminProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Post('projects')
  @ApiOperation({ summary: 'Create a project' })
  @ApiCreatedResponse({ type: ProjectResponse })
  async create(@Body() dto: CreateProjectDto): Promise<ProjectResponse> {
    return mapProject(await this.projects.createProject(dto.name));
  }

  @Get('projects')
  @ApiOperation({ summary: 'List projects, oldest first' })
  @ApiOkResponse({ type: ProjectListResponse })
  async list(): Promise<ProjectListResponse> {
    return { projects: (await this.projects.listProjects()).map(mapProject) };
  }

  @Get('projects/:id')
  @ApiOperation({ summary: 'Show a project' })
  @ApiOkResponse({ type: ProjectResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async get(@Param() { id }: IdParams): Promise<ProjectResponse> {
    return mapProject(await this.projects.getProject(id));
  }

  @Patch('projects/:id')
  @ApiOperation({
    summary:
      'Rename a project, switch its message export (getMessagesData) or set the origins allowed to embed its widget',
  })
  @ApiOkResponse({ type: ProjectResponse })
  @ApiBadRequestResponse({
    type: ErrorResponse,
    description: 'an entry of allowed_origins is not an exact origin',
  })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async update(@Param() { id }: IdParams, @Body() dto: UpdateProjectDto): Promise<ProjectResponse> {
    // A JSON null is "no change", like an absent field. Origins first: they are the one field
    // the service still validates, so a bad list changes nothing else either.
    if (dto.allowed_origins != null) await this.projects.setAllowedOrigins(id, dto.allowed_origins);
    if (dto.name != null) await this.projects.renameProject(id, dto.name);
    if (dto.export_enabled != null) await this.projects.setExport(id, dto.export_enabled);
    return mapProject(await this.projects.getProject(id));
  }
}
