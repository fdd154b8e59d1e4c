import { ConsoleLogger, type LogLevel as NestLogLevel } from '@nestjs/common';
import type { LogLevel } from '../config/config';

/**
 * Nest's own start-up lines: a line per module wired and per route mapped (about 110 lines).
 * Useful when a route is missing, noise on every other start, so they are logged at debug.
 */
const STARTUP_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

/** Nest's levels at and above KBQA_LOG_LEVEL (Nest calls info `log`). */
export function nestLogLevels(level: LogLevel): NestLogLevel[] {
  const order: NestLogLevel[] = ['verbose', 'debug', 'log', 'warn', 'error', 'fatal'];
  return order.slice(order.indexOf(level === 'info' ? 'log' : level));
}

/** The service's logger: Nest's console format, KBQA_LOG_LEVEL, start-up chatter at debug. */
export class KbqaLogger extends ConsoleLogger {
  constructor(level: LogLevel) {
    super({ logLevels: nestLogLevels(level) });
  }

  override log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams[optionalParams.length - 1];
    // The contexts are class names, which the binary's bundler may prefix (`_InstanceLoader`).
    if (typeof context === 'string' && STARTUP_CONTEXTS.has(context.replace(/^_+/, ''))) {
      this.debug(message, ...optionalParams);
      return;
    }
    super.log(message, ...optionalParams);
  }
}
