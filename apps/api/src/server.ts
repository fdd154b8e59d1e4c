import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { createApp } from './bootstrap';
import type { AppConfig } from './config/config';

/** Serves the API until a signal stops it: `node dist/main.js`, `kbqa start` and the binary's `start`. */
export async function serve(config: AppConfig): Promise<void> {
  const app = await createApp(config);
  app.enableShutdownHooks();
  await app.listen(config.port, config.host);
  const address = (app.getHttpServer() as Server).address() as AddressInfo;
  new Logger('kbqa').log(`listening on http://${config.host}:${address.port} (data in ${config.dataDir})`);
}
