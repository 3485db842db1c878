/**
 * How every rampflow process logs: JSON lines on stdout through pino, with ISO timestamps and the
 * service's name, so the worker's, the receiver's and the sandbox's lines read alike. The native
 * Temporal runtime is not loaded here (workers/logging.ts routes the SDK's own lines into pino).
 */
import pino, { type Logger } from 'pino';

export function createLogger(name: string, level = 'info'): Logger {
  return pino({ name, level, base: { service: name }, timestamp: pino.stdTimeFunctions.isoTime });
}
