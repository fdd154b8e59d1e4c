/**
 * Shapes of the operator API (docs/api.md, "Operator API"): the response schemas of its OpenAPI
 * document, generated into api-types.gen.ts, under the names the pages use.
 */
import type { components } from './api-types.gen';

type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

export type Project = Schema<'ProjectResponse'>;
export type Key = Schema<'KeyResponse'>;
export type IndexRow = Schema<'IndexResponse'>;
export type TaskSummary = Schema<'TaskSummaryResponse'>;
export type TaskReport = Schema<'TaskReportResponse'>;
export type SourceRow = Schema<'AdminSourceResponse'>;
export type Taught = Schema<'TaughtResponse'>;
export type ConversationRow = Schema<'ConversationSummaryResponse'>;
export type ConversationDetail = Schema<'ConversationResponse'>;
export type Analytics = Schema<'AnalyticsResponse'>;
/** Where a question was asked (the API's questions_by_channel keys). */
export type Channel = keyof Analytics['questions_by_channel'];
export type Gap = Schema<'GapResponse'>;
/** A chat platform of a project (GET /admin/v1/projects/:id/integrations); secrets as ••••. */
export type Integration = Schema<'IntegrationResponse'>;
