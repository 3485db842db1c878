/** The SDK's log lines as rampflow prints them (workers/logging.ts). */
import type { LogEntry } from '@temporalio/worker';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { isExpectedSdkWarning, oneLine, sdkLogger } from '../../workers/logging';

const entry = (message: string, meta: Record<string, unknown>): LogEntry => ({
  level: 'WARN',
  message,
  meta,
  timestampNanos: 1_700_000_000_000_000_000n,
});

describe("the SDK's log lines", () => {
  it('drop "No workflows registered" from the service queue\'s worker only', () => {
    const message = 'No workflows registered, not polling for workflow tasks';
    expect(isExpectedSdkWarning(entry(message, { sdkComponent: 'worker', taskQueue: 'rampflow-service' }))).toBe(true);
    expect(isExpectedSdkWarning(entry(message, { sdkComponent: 'worker', taskQueue: 'rampflow' }))).toBe(false);
    expect(isExpectedSdkWarning(entry('Activity failed', { taskQueue: 'rampflow-service' }))).toBe(false);

    const written: string[] = [];
    const logger = sdkLogger(pino({ level: 'info' }, { write: (line: string) => written.push(line) }));
    logger.warn(message, { taskQueue: 'rampflow-service' });
    logger.warn(message, { taskQueue: 'rampflow' });
    expect(written).toHaveLength(1);
    expect(written[0]).toContain('"taskQueue":"rampflow"');
  });

  it('print one line per entry in the dev stack: an error as its type and message, no task token', () => {
    const error = new Error('HTTP 503');
    const line = oneLine(
      entry('Activity failed', {
        error,
        taskToken: 'Q2lRd01XRXlNV0poTnkx',
        nested: { a: { b: { c: 1 } } },
        text: 'two\nlines',
      }),
    );
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(
      /^2023-11-14T22:13:20\.000Z \[WARN\] Activity failed \{ error: 'Error: HTTP 503', nested: .*text: 'two\\nlines' \}$/,
    );
    expect(line).not.toContain(' at ');
    expect(line).not.toContain('taskToken');
  });
});
