import { ApiProperty } from '@nestjs/swagger';
import { type KeyKind, type KeyRecord, toIsoUtc } from '@kbqa/core';
import { IsIn } from 'class-validator';
import type { CreatedKey } from '../projects/projects.service';

const KEY_KINDS: KeyKind[] = ['server', 'anon'];

/** `POST /admin/v1/projects/:id/keys`. */
export class CreateKeyDto {
  @ApiProperty({
    enum: KEY_KINDS,
    description: 'server keys ingest and manage sources; anon keys only chat, for use in browsers',
  })
  @IsIn(KEY_KINDS, { message: 'kind must be "server" or "anon"' })
  kind!: KeyKind;
}

/** A key as listings show it: never the key or its hash. */
export class KeyResponse {
  @ApiProperty({ example: 3 })
  id!: number;

  @ApiProperty({ example: 1 })
  project_id!: number;

  @ApiProperty({ enum: KEY_KINDS })
  kind!: KeyKind;

  @ApiProperty({
    description: 'the readable start of the key, to tell keys apart',
    example: 'kbqa_sk_Ab12Cd',
  })
  prefix!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-25T10:00:00.000Z' })
  created_at!: string;

  @ApiProperty()
  revoked!: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  revoked_at!: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'when the key last authenticated, to about a minute; null if never used',
  })
  last_used_at!: string | null;
}

/** `GET /admin/v1/projects/:id/keys`. */
export class KeyListResponse {
  @ApiProperty({ type: [KeyResponse] })
  keys!: KeyResponse[];
}

/** A key just created: the only answer that holds the key itself. */
export class CreatedKeyResponse {
  @ApiProperty({ example: 3 })
  id!: number;

  @ApiProperty({ example: 1 })
  project_id!: number;

  @ApiProperty({ enum: KEY_KINDS })
  kind!: KeyKind;

  @ApiProperty({ description: 'shown once: only its sha256 is stored', example: 'kbqa_sk_…' })
  key!: string;
}

/** The record as a listing row: snake_case, ISO 8601 times. */
export function mapKey(key: KeyRecord): KeyResponse {
  return {
    id: key.id,
    project_id: key.projectId,
    kind: key.kind,
    prefix: key.prefix,
    created_at: toIsoUtc(key.createdAt),
    revoked: key.revokedAt !== null,
    revoked_at: key.revokedAt === null ? null : toIsoUtc(key.revokedAt),
    last_used_at: key.lastUsedAt === null ? null : toIsoUtc(key.lastUsedAt),
  };
}

/** The service's new key as a response. */
export function mapCreatedKey(key: CreatedKey): CreatedKeyResponse {
  return { id: key.id, project_id: key.project_id, kind: key.kind, key: key.key };
}
