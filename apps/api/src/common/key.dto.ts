import { IsOptional, IsString } from 'class-validator';

/** Every request body may carry the key fields; ApiKeyGuard reads them before validation. */
export class KeyDto {
  @IsOptional()
  @IsString()
  api_key?: string;

  @IsOptional()
  @IsString()
  anon_key?: string;
}
