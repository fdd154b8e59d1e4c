import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ADMIN_BEARER } from './admin.guard';
import { AdminModule } from './admin.module';

/** Where the operator API's OpenAPI document is served (without a token: it holds no data). */
export const ADMIN_OPENAPI_PATH = '/admin/v1/openapi.json';

/**
 * The OpenAPI 3 document of the operator API only (`include: [AdminModule]`): the public API
 * copies another service's contract, documented there. Built once at start-up, from the same
 * decorators that validate requests, so it cannot describe fields the routes refuse.
 */
export function createAdminOpenApiDocument(app: INestApplication, version: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('kbqa operator API')
    .setDescription(
      'Projects, API keys and ingestion tasks of a kbqa service. Every route needs the operator token ' +
        '(KBQA_ADMIN_TOKEN, or the one the `kbqa admin token` command prints) as `Authorization: Bearer <token>`. ' +
        'Errors are `{"error": "...", "code": "..."}`.',
    )
    .setVersion(version)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'the operator token' }, ADMIN_BEARER)
    .build();
  return SwaggerModule.createDocument(app, config, { include: [AdminModule] });
}
