import type { Logger } from '@nestjs/common';

/** Past this, a stop whose shutdown hooks hang ends the process anyway. */
export const HARD_STOP_MS = 20_000;

/**
 * SIGTERM and SIGINT stop a long-running command (`kbqa start`, `kbqa worker`) cleanly, with exit
 * code 0: `stop` closes what the process runs and returns the end of the one line logged after
 * it (`SIGTERM: stopped in 12 ms<remark>`). Nest's own shutdown hooks would re-raise the signal
 * after closing, and the process would die of it (exit 143, which `pnpm start`, systemd and
 * Docker report as a failure). A second signal stops at once, with exit code 1; so does a stop
 * still running after HARD_STOP_MS.
 */
export function stopOnSignals(logger: Logger, stop: (signal: NodeJS.Signals) => Promise<string>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn(`${signal} again: stopping now, without waiting`);
      process.exit(1);
    }
    stopping = true;
    const started = Date.now();
    const hard = setTimeout(() => {
      logger.error(`${signal}: shutdown still not done after ${HARD_STOP_MS / 1000} s; exiting`);
      process.exit(1);
    }, HARD_STOP_MS);
    hard.unref();
    stop(signal).then(
      (remark) => {
        clearTimeout(hard);
        logger.log(`${signal}: stopped in ${Date.now() - started} ms${remark}`);
        process.exit(0);
      },
      (e: unknown) => {
        logger.error(`${signal}: shutdown failed: ${e instanceof Error ? e.message : String(e)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
