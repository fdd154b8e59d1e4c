import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/config';
import { ProjectsModule } from '../projects/projects.module';
import { loadOrCreateKeyFile, SecretBox, secretKeyFile } from './secret-box';
import { ToolSourcesService } from './tool-sources.service';
import { ToolsService } from './tools.service';

/** HTTP tool definitions and MCP tool sources per project: managed by the operator API and the CLI. */
@Module({
  imports: [ProjectsModule],
  providers: [
    ToolsService,
    ToolSourcesService,
    {
      provide: SecretBox,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): SecretBox => {
        const { secretKey } = config;
        if (secretKey !== undefined)
          return new SecretBox(() => Buffer.from(secretKey, 'hex'), 'KBQA_SECRET_KEY');
        const file = secretKeyFile(config.dataDir);
        return new SecretBox(() => loadOrCreateKeyFile(file), file);
      },
    },
  ],
  exports: [ToolsService, ToolSourcesService],
})
export class ToolsModule {}
