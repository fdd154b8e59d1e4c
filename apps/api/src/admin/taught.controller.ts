import { Body, Delete, Get, Param, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { TeachingService } from '../teaching/teaching.service';
import { ErrorResponse, IdParams } from './admin.dto';
import { AdminController } from './admin.guard';
import { DeletedResponse } from './sources.dto';
import {
  CreateTaughtDto,
  mapTaught,
  TaughtListResponse,
  TaughtResponse,
  UpdateTaughtDto,
} from './taught.dto';

/** Teaching: curated question/answer pairs that chat answers with first (docs/api.md). */
@AdminController('taught')
export class AdminTaughtController {
  constructor(private readonly teaching: TeachingService) {}

  @Get('projects/:id/taught')
  @ApiOperation({ summary: "List a project's taught question/answer pairs, oldest first" })
  @ApiOkResponse({ type: TaughtListResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async list(@Param() { id }: IdParams): Promise<TaughtListResponse> {
    return { taught: (await this.teaching.list(id)).map(mapTaught) };
  }

  @Post('projects/:id/taught')
  @ApiOperation({
    summary: 'Teach a question and its answer; a chat asking it closely is answered with it first',
  })
  @ApiCreatedResponse({ type: TaughtResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async create(@Param() { id }: IdParams, @Body() dto: CreateTaughtDto): Promise<TaughtResponse> {
    return mapTaught(await this.teaching.create(id, dto.question, dto.answer));
  }

  @Patch('taught/:id')
  @ApiOperation({ summary: 'Change the question or the answer of a taught pair' })
  @ApiOkResponse({ type: TaughtResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async update(@Param() { id }: IdParams, @Body() dto: UpdateTaughtDto): Promise<TaughtResponse> {
    return mapTaught(await this.teaching.update(id, dto));
  }

  @Delete('taught/:id')
  @ApiOperation({ summary: 'Forget a taught pair, with its source and passages' })
  @ApiOkResponse({ type: DeletedResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  async delete(@Param() { id }: IdParams): Promise<DeletedResponse> {
    await this.teaching.delete(id);
    return { deleted: 1 };
  }
}
