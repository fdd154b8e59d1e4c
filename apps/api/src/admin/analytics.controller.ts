import { Get, Param, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ErrorResponse, IdParams } from './admin.dto';
import { AdminController } from './admin.guard';
import { AnalyticsResponse, GapListResponse, GapsQuery } from './analytics.dto';
import { AnalyticsService } from './analytics.service';
import { DayRangeQuery } from './paging.dto';

/** Charts of a project's questions, ratings and conversation lengths, and its documentation gaps. */
@AdminController('analytics')
export class AdminAnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('projects/:id/analytics')
  @ApiOperation({
    summary: 'Questions per day, answer ratings and conversation durations (default: the last 30 days)',
  })
  @ApiOkResponse({ type: AnalyticsResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  show(@Param() { id }: IdParams, @Query() range: DayRangeQuery): Promise<AnalyticsResponse> {
    return this.analytics.analytics(id, range);
  }

  @Get('projects/:id/gaps')
  @ApiOperation({
    summary:
      'Questions answered with no relevant source or rated bad, grouped by similar wording (default: the last 30 days); `version` keeps the questions about one documentation version',
  })
  @ApiOkResponse({ type: GapListResponse })
  @ApiNotFoundResponse({ type: ErrorResponse })
  gaps(@Param() { id }: IdParams, @Query() query: GapsQuery): Promise<GapListResponse> {
    return this.analytics.gaps(id, query);
  }
}
