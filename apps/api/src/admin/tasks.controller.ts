import { Get, Param, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { DEFAULT_TASK_LIST, ListTasksQuery, TaskListResponse, TaskReportResponse } from '../tasks/tasks.dto';
import { TasksService } from '../tasks/tasks.service';
import { ErrorResponse, IdParams } from './admin.dto';
import { AdminController } from './admin.guard';

/** Ingestion tasks: a project's list, and one task's per-URL report (`kbqa tasks show`). */
@AdminController('tasks')
export class AdminTasksController {
  constructor(private readonly tasks: TasksService) {}

  @Get('projects/:id/tasks')
  @ApiOperation({ summary: "List a project's ingestion tasks, newest first" })
  @ApiOkResponse({ type: TaskListResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async list(@Param() { id }: IdParams, @Query() query: ListTasksQuery): Promise<TaskListResponse> {
    return { tasks: await this.tasks.list(id, query.limit ?? DEFAULT_TASK_LIST) };
  }

  @Get('tasks/:id')
  @ApiOperation({ summary: 'What an ingestion task did: every URL indexed or skipped, and why' })
  @ApiOkResponse({ type: TaskReportResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  report(@Param() { id }: IdParams): Promise<TaskReportResponse> {
    return this.tasks.report(id);
  }
}
