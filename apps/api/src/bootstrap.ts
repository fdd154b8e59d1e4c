import 'reflect-metadata';
import { type INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { ADMIN_OPENAPI_PATH, createAdminOpenApiDocument } from './admin/openapi';
import { AppModule } from './app.module';
import { KbqaLogger } from './common/kbqa-logger';
import { registerJsonBody } from './common/json-body';
import { registerDashboardPages } from './dashboard/dashboard-static';
import type { AppConfig } from './config/config';
import { IntegrationsEndpoint, registerIntegrationRoutes } from './integrations/integrations-route';
import { McpEndpoint, registerMcpRoutes } from './mcp/mcp-route';
import { ProjectsService } from './projects/projects.service';
import { registerWidgetRoutes } from './widget/widget-route';
import { registerUploads } from './ingestion/uploads';

/**
 * Builds the HTTP application (ready, not listening), as main.ts and the e2e tests use it.
 * Fastify rather than Express: Nest on Express served an empty handler at a third of Fastify's
 * rate, and Express alone would cap newConversation well below a bare node:http server
 * (docs/benchmarks.md, "Design figures").
 */
export async function createApp(
  config: AppConfig,
  options: { logger?: false } = {},
): Promise<INestApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    return503OnClosing: false,
    trustProxy: config.trustProxy,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger: options.logger ?? new KbqaLogger(config.logLevel),
    bodyParser: false,
  });
  const instance = app.getHttpAdapter().getInstance();
  // Body errors (size, malformed JSON) reach Nest's error handler and so the one exception filter.
  registerJsonBody(instance, config.bodyLimitBytes);
  // Multipart only for the upload routes (ingestFiles, the dashboard's upload), with their own limits.
  await registerUploads(instance, config.uploads);
  // Set on the raw response so that streamed (SSE) answers carry it too.
  instance.addHook('onRequest', (_req, reply, done) => {
    reply.raw.setHeader('X-Content-Type-Options', 'nosniff');
    done();
  });
  // Built once here, not per request; served as a plain Fastify route since it needs no token.
  const openApi = JSON.stringify(createAdminOpenApiDocument(app, config.version));
  instance.get(ADMIN_OPENAPI_PATH, (_req, reply) => {
    void reply.type('application/json; charset=utf-8').send(openApi);
  });
  registerDashboardPages(instance, new Logger('Dashboard'));
  registerWidgetRoutes(instance, app.get(ProjectsService));
  registerMcpRoutes(instance, app.get(McpEndpoint));
  registerIntegrationRoutes(instance, app.get(IntegrationsEndpoint), config.bodyLimitBytes);
  await app.init();
  await instance.ready();
  return app;
}

/**
 * The operator API's OpenAPI document without a server, for the dashboard's generated types
 * (apps/dashboard/scripts/gen-types.cjs). Nest's preview mode wires the modules but creates no
 * provider, so no database, queue or model is opened.
 */
export async function buildAdminOpenApiDocument(config: AppConfig): Promise<OpenAPIObject> {
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config),
    new FastifyAdapter(),
    {
      preview: true,
      logger: false,
    },
  );
  try {
    return createAdminOpenApiDocument(app, config.version);
  } finally {
    await app.close();
  }
}
