import { IsIn, IsInt, IsOptional } from 'class-validator';
import type { MessageRecord } from '@kbqa/core';
import { KeyDto } from '../common/key.dto';
import type { ToolUsage } from '../chat/chat.dto';
import { IsCalendarDay, IsLooseId } from '../common/validators';

export class NewConversationDto extends KeyDto {}

export class ConversationRefDto extends KeyDto {
  @IsLooseId()
  conversation_id!: number | string;
}

export class RateMessageDto extends KeyDto {
  @IsLooseId()
  message_id!: number | string;

  @IsInt()
  @IsIn([1, -1, 0], { message: 'rating_value must be 1 (good), -1 (bad) or 0 (clear)' })
  rating_value!: number;
}

export class GetMessagesDataDto extends KeyDto {
  @IsOptional()
  @IsInt()
  @IsIn([1, -1, 0], { message: 'rating_value must be 1, -1 or 0' })
  rating_value?: number;

  @IsOptional()
  @IsCalendarDay()
  start_date?: string;

  @IsOptional()
  @IsCalendarDay()
  end_date?: string;
}

export interface MessageResponse {
  message_id: number;
  conversation_id: number;
  sender: 'Human' | 'AI';
  timestamp: string;
  message: string;
  rating_value: number;
  /** The answer's tool calls (always [] for a Human message). */
  tools_used: ToolUsage[];
}

export interface ExportedMessageResponse {
  project_id: number;
  message_id: number;
  conversation_id: number;
  timestamp: string;
  human_query: string;
  ai_response: string;
  /** The answer's tool calls. */
  tools_used: ToolUsage[];
}

export function mapMessage(m: MessageRecord): MessageResponse {
  return {
    message_id: m.id,
    conversation_id: m.conversationId,
    sender: m.sender,
    timestamp: m.createdAt,
    message: m.text,
    rating_value: m.ratingValue,
    tools_used: parseToolsUsed(m.toolsUsed),
  };
}

/** The stored JSON column; [] for anything unreadable (a message stored before tools were recorded has '[]'). */
export function parseToolsUsed(stored: string | null | undefined): ToolUsage[] {
  if (!stored) return [];
  try {
    const value = JSON.parse(stored) as unknown;
    return Array.isArray(value) ? (value as ToolUsage[]) : [];
  } catch {
    return [];
  }
}
