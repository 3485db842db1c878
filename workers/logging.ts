/**
 * Structured logs (pino, JSON lines on stdout) for the worker and the SDK. The SDK's own logger is
 * routed into pino so workflow and activity log lines come out in the same format.
 */
import { DefaultLogger, type LogLevel } from '@temporalio/worker';
import pino, { type Logger } from 'pino';

export function createLogger(level: string, name: string): Logger {
  return pino({ name, level, base: { service: name }, timestamp: pino.stdTimeFunctions.isoTime });
}

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
