import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IntersectionType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { DayRangeQuery, PageQuery } from './paging.dto';

export type RatingFilter = 'good' | 'bad' | 'unrated';
const RATING_FILTERS: RatingFilter[] = ['good', 'bad', 'unrated'];

/** `GET /admin/v1/projects/:id/conversations?from=&to=&rating=&q=&limit=&offset=`. */
export class ListConversationsQuery extends IntersectionType(DayRangeQuery, PageQuery) {
  @ApiPropertyOptional({
    enum: RATING_FILTERS,
    description: 'good: an answer rated 1; bad: an answer rated -1; unrated: no answer rated',
  })
  @IsOptional()
  @IsIn(RATING_FILTERS, { message: 'rating must be "good", "bad" or "unrated"' })
  rating?: RatingFilter;

  @ApiPropertyOptional({
    maxLength: 500,
    description:
      'words, each found (any case, as part of a word too) in a question or an answer of the conversation',
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  q?: string;
}

/** A line of the conversation list. */
export class ConversationSummaryResponse {
  @ApiProperty({ type: 'integer' })
  id!: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'set by endConversation' })
  ended_at!: string | null;

  @ApiProperty({ type: 'integer', description: 'messages, questions and answers together' })
  messages!: number;

  @ApiProperty({ type: String, nullable: true, description: 'null for a conversation without messages' })
  first_question!: string | null;

  @ApiProperty({ type: 'integer', description: 'answers rated 1' })
  good!: number;

  @ApiProperty({ type: 'integer', description: 'answers rated -1' })
  bad!: number;
}

export class ConversationListResponse {
  @ApiProperty({ type: 'integer', description: 'conversations matching the filters, over all pages' })
  total!: number;

  @ApiProperty({ type: [ConversationSummaryResponse] })
  conversations!: ConversationSummaryResponse[];
}

export class MessageSourceResponse {
  @ApiProperty()
  link!: string;

  @ApiProperty({ minimum: 0, maximum: 1 })
  relevance_score!: number;
}

export class ConversationMessageResponse {
  @ApiProperty({ type: 'integer' })
  id!: number;

  @ApiProperty({ enum: ['Human', 'AI'] })
  role!: 'Human' | 'AI';

  @ApiProperty()
  text!: string;

  @ApiProperty({ type: [MessageSourceResponse], description: 'the sources an answer was given with' })
  sources!: MessageSourceResponse[];

  @ApiProperty({ enum: [1, 0, -1], description: '1 good, -1 bad, 0 not rated (always 0 for questions)' })
  rating!: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class ConversationResponse {
  @ApiProperty({ type: 'integer' })
  id!: number;

  @ApiProperty({ type: 'integer' })
  project_id!: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  ended_at!: string | null;

  @ApiProperty({ type: [ConversationMessageResponse] })
  messages!: ConversationMessageResponse[];
}

export class QuestionsPerDayResponse {
  @ApiProperty({ format: 'date', example: '2026-11-25' })
  day!: string;

  @ApiProperty({ type: 'integer' })
  questions!: number;
}

export class RatingsResponse {
  @ApiProperty({ type: 'integer', description: 'answers given in the range' })
  answers!: number;

  @ApiProperty({ type: 'integer' })
  good!: number;

  @ApiProperty({ type: 'integer' })
  bad!: number;

  @ApiProperty({ type: 'integer' })
  unrated!: number;

  @ApiProperty({ minimum: 0, maximum: 1, description: 'good / answers (0 without answers)' })
  good_share!: number;

  @ApiProperty({ minimum: 0, maximum: 1, description: 'bad / answers (0 without answers)' })
  bad_share!: number;
}

export class DurationBucketResponse {
  @ApiProperty({ enum: ['<1 min', '1–5 min', '5–15 min', '15–60 min', '>1 h'] })
  label!: string;

  @ApiProperty({ type: 'integer' })
  count!: number;
}

export class DurationsResponse {
  @ApiProperty({ type: 'integer', description: 'conversations of the range that were ended' })
  ended!: number;

  @ApiProperty({ type: Number, nullable: true, description: 'null when none ended' })
  median_seconds!: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'null when none ended' })
  mean_seconds!: number | null;

  @ApiProperty({ type: [DurationBucketResponse] })
  buckets!: DurationBucketResponse[];
}

export class QuestionsPerVersionResponse {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'the documentation version asked about; null: none',
  })
  version!: string | null;

  @ApiProperty({ type: 'integer' })
  questions!: number;
}

/** The gaps of one documentation version (`version` absent: every question). */
export class GapsQuery extends DayRangeQuery {
  @ApiPropertyOptional({ description: 'only questions asked about this documentation version' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  version?: string;
}

/**
 * Questions of the range by where their conversation was started: `api` a server key
 * (serviceChat, and the dashboard's playground), `widget` an anon key, `slack` and `discord` the
 * chat platforms, `mcp` the MCP `ask` tool (its `search` tool is retrieval, not a question).
 */
export class QuestionsByChannelResponse {
  @ApiProperty({ type: 'integer' })
  api!: number;

  @ApiProperty({ type: 'integer' })
  widget!: number;

  @ApiProperty({ type: 'integer' })
  slack!: number;

  @ApiProperty({ type: 'integer' })
  discord!: number;

  @ApiProperty({ type: 'integer' })
  mcp!: number;
}

export class AnalyticsResponse {
  @ApiProperty({ format: 'date' })
  from!: string;

  @ApiProperty({ format: 'date' })
  to!: string;

  @ApiProperty({ type: [QuestionsPerDayResponse], description: 'every day of the range, zeros included' })
  questions_per_day!: QuestionsPerDayResponse[];

  @ApiProperty({ type: QuestionsByChannelResponse })
  questions_by_channel!: QuestionsByChannelResponse;

  @ApiProperty({ type: RatingsResponse })
  ratings!: RatingsResponse;

  @ApiProperty({ type: DurationsResponse })
  durations!: DurationsResponse;

  @ApiProperty({
    type: [QuestionsPerVersionResponse],
    description: 'questions of the range by the documentation version they asked about, most asked first',
  })
  questions_per_version!: QuestionsPerVersionResponse[];
}

export class GapResponse {
  @ApiProperty({ description: 'the most frequent wording of the group' })
  question!: string;

  @ApiProperty({ type: 'integer', description: 'questions in the group' })
  count!: number;

  @ApiProperty({ type: 'integer', description: 'of them, answered with no relevant source' })
  no_source!: number;

  @ApiProperty({ type: 'integer', description: 'of them, answers rated bad' })
  rated_bad!: number;

  @ApiProperty({ type: [String], description: 'up to 5 distinct wordings, the most frequent first' })
  examples!: string[];

  @ApiProperty({ format: 'date-time' })
  last_asked!: string;
}

export class GapListResponse {
  @ApiProperty({ type: [GapResponse] })
  gaps!: GapResponse[];
}
