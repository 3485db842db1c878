/**
 * The SDK's own logger routed into the worker's pino logger (config/logger.ts), so workflow and
 * activity log lines come out in the same format as the worker's.
 */
import { DefaultLogger, type LogLevel } from '@temporalio/worker';
import type { Logger } from 'pino';

const SDK_LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/** A Temporal SDK logger that writes through pino. */
export function sdkLogger(logger: Logger): DefaultLogger {
  const threshold: LogLevel = logger.isLevelEnabled('debug') ? 'DEBUG' : logger.isLevelEnabled('info') ? 'INFO' : 'WARN';
  return new DefaultLogger(threshold, (entry) => {
    logger[SDK_LEVELS[entry.level]]({ ...entry.meta, sdk: true }, entry.message);
  });
}
