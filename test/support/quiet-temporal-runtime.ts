// Keep the SDK's per-worker INFO lines out of test output; warnings and errors still show, but for
// the failed attempts a test provokes on purpose (allowActivityFailures).
import { IllegalStateError } from '@temporalio/common';
import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';

const printer = new DefaultLogger('WARN');
const expectedFailureTypes = new Set<string>();

/** Drops the SDK's "Activity failed" warning for failures of these types: the test makes them happen. */
export function allowActivityFailures(...types: string[]): void {
  for (const type of types) expectedFailureTypes.add(type);
}

function expected(entry: LogEntry): boolean {
  if (entry.message !== 'Activity failed') return false;
  const type = (entry.meta?.error as { type?: unknown } | undefined)?.type;
  return typeof type === 'string' && expectedFailureTypes.has(type);
}

// Projects whose own setup installed a runtime first (the cluster and fault projects log errors only,
// quieter still) keep theirs: a file of this project that they also run imports this module for
// allowActivityFailures, which then has nothing to filter.
try {
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => {
      if (!expected(entry)) printer.log(entry.level, entry.message, entry.meta);
    }),
  });
} catch (error) {
  if (!(error instanceof IllegalStateError)) throw error;
}
