/**
 * The SDK's own logger: routed into the worker's pino logger (config/logger.ts) in the worker process,
 * so workflow and activity log lines come out in the same format as the worker's; one plain line per
 * entry on stderr in `rampflow dev`. Both drop the one warning rampflow's design makes at every start.
 */
import { formatWithOptions } from 'node:util';
import {
  DefaultLogger,
  type LogEntry,
  type LogLevel,
  makeTelemetryFilterString,
  type RuntimeOptions,
} from '@temporalio/worker';
import type { Logger } from 'pino';
import { serviceTaskQueueOf } from '../workflows/common/calls';

const SDK_LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

const NO_WORKFLOWS = 'No workflows registered, not polling for workflow tasks';
const SERVICE_QUEUE_SUFFIX = serviceTaskQueueOf('');

/**
 * The SDK warns "No workflows registered" for every worker without workflows, and the worker of the
 * service queue (`<queue>-service`, workers/worker.ts) has none by design: it runs only the activities
 * that call the service. The SDK has no option to say so (1.24 warns whenever a worker has neither
 * workflowsPath nor a bundle), and giving it the bundle would make it poll a queue no workflow task
 * is ever sent to. So that one message, from that one queue, is dropped; any other worker without
 * workflows still warns.
 */
export function isExpectedSdkWarning(entry: Pick<LogEntry, 'message' | 'meta'>): boolean {
  const taskQueue: unknown = entry.meta?.taskQueue;
  return entry.message === NO_WORKFLOWS && typeof taskQueue === 'string' && taskQueue.endsWith(SERVICE_QUEUE_SUFFIX);
}

/**
 * Core's own lines (the SDK's Rust part: a workflow task failing, with its run's id and the
 * nondeterminism it met) through the same logger as the SDK's other lines (JSON in the worker
 * process, one line in `rampflow dev`), instead of core's own format on stderr; its warnings and
 * errors only, as the SDK's default keeps.
 */
export const CORE_LINES_FORWARDED: NonNullable<RuntimeOptions['telemetryOptions']> = {
  logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }) },
};

/** A Temporal SDK logger that writes through pino. */
export function sdkLogger(logger: Logger): DefaultLogger {
  const threshold: LogLevel = logger.isLevelEnabled('debug')
    ? 'DEBUG'
    : logger.isLevelEnabled('info')
      ? 'INFO'
      : 'WARN';
  return new DefaultLogger(threshold, (entry) => {
    if (isExpectedSdkWarning(entry)) return;
    logger[SDK_LEVELS[entry.level]]({ ...entry.meta, sdk: true }, entry.message);
  });
}

/**
 * One line per entry, whatever its metadata: `<time> [LEVEL] message {key: value, ...}`. The SDK's
 * default prints metadata as a multi-line object and an error with its stack, which buries the dev
 * stack's progress lines (a failing partner endpoint's attempts filled screens); an error is its
 * type and message here, and an activity's task token is left out.
 */
export function oneLine(entry: LogEntry): string {
  const meta =
    entry.meta === undefined
      ? undefined
      : Object.fromEntries(
          Object.entries(entry.meta)
            // An activity's task token is an opaque key of a hundred and more characters, for no reader.
            .filter(([key]) => key !== 'taskToken')
            .map(([key, value]) => [key, value instanceof Error ? `${value.name}: ${value.message}` : value]),
        );
  const text = formatWithOptions(
    { breakLength: Infinity, compact: true, colors: false },
    '%s [%s] %s',
    new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString(),
    entry.level,
    entry.message,
  );
  const line =
    meta === undefined
      ? text
      : `${text} ${formatWithOptions({ breakLength: Infinity, compact: true, colors: false, depth: 2 }, '%O', meta)}`;
  return line.replace(/\s*\n\s*/g, ' ');
}

/** The dev stack's SDK logger: warnings and errors, one line each on stderr. */
export function devSdkLogger(): DefaultLogger {
  return new DefaultLogger('WARN', (entry) => {
    if (isExpectedSdkWarning(entry)) return;
    process.stderr.write(`${oneLine(entry)}\n`);
  });
}
