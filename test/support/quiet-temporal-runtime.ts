// Keep the SDK's per-worker INFO lines out of test output; warnings and errors still show, except the
// failed attempts that are the service answering as a service does. Tests provoke those on purpose
// (a sandbox fault, a record the service does not have, a refused create), and hundreds of their stack
// traces would hide the one warning that matters: an activity failing with an error of no service
// type (a bug) still prints. So do workflows failing, except those refusing bad start input on purpose.
import { IllegalStateError } from '@temporalio/common';
import { DefaultLogger, makeTelemetryFilterString, Runtime, type LogEntry } from '@temporalio/worker';

const printer = new DefaultLogger('WARN');

/**
 * The failure types activities give the service's answers (activities/failures.ts,
 * activities/list-search.ts), and a partner endpoint's (activities/partner-event-activities.ts).
 */
const SERVICE_FAILURE_TYPES = new Set([
  'NotFound',
  'InvalidParameters',
  'Unauthorised',
  'LegacyFailure',
  'SchemaMismatch',
  'OutcomeUnknown',
  'Failed',
  'Refused',
  'Connection',
  'HttpError',
  'ListSearchContinues',
  'DeliveryFailed',
  'EndpointGone',
  // A journey refusing a deposit's report while it hands over to its next run (activities/journey-reports.ts):
  // offered again, as designed.
  'ReportRefused',
]);

let nondeterminismExpected = false;

/**
 * From now on in this test file, core's warning about a workflow task failed by nondeterminism is
 * expected: a replay test that shows a change not behind a patch fails (test/workflows/replay.test.ts)
 * asserts the failure itself. Core forwards its lines a moment later, so this is never turned off.
 */
export function expectNondeterminism(): void {
  nondeterminismExpected = true;
}

function expected(entry: LogEntry): boolean {
  if (
    nondeterminismExpected &&
    entry.message === 'Failing workflow task' &&
    String(entry.meta?.failure).includes('Nondeterminism error')
  )
    return true;
  const error = entry.meta?.error as { type?: unknown; message?: unknown } | undefined;
  // A workflow refusing its bad start input (workflows/common/checks.ts) is the contract working. The
  // error comes from the workflow's thread as a structured clone, without its `type`: its message says.
  // The codec's coverage test fails a workflow on purpose, to see its failure message sealed.
  if (entry.message === 'Workflow failed')
    return (
      entry.meta?.workflowType === 'codecCoverage' ||
      (typeof error?.message === 'string' && /^invalid \w+ input: /.test(error.message))
    );
  // The trust rule at work on deliveries the tests forge or misdirect on purpose: the service's record
  // wins over the payload, and a delivery nothing can route is parked for an operator.
  if (
    entry.message === "webhook payload disagrees with the service; using the service's record" ||
    entry.message === 'ramp event parked'
  )
    return true;
  // A stream whose store keeps refusing its sequences parks its publishing, loudly: the sequence
  // conflict test's burst workflow is refused on purpose (test/partner-events/sequence-conflict.temporal.test.ts).
  if (entry.message === 'partner events parked: not recorded' && entry.meta?.workflowType === 'partnerEventBurst')
    return true;
  // A journey ignoring a hand-over to a queue it cannot move to: tests send such targets on purpose.
  if (entry.message.startsWith('hand-over ignored')) return true;
  // Reconciliation learning, from a sandbox told to list oldest first, that the list is not newest first.
  if (entry.message.startsWith("the service's list grew but its head did not change")) return true;
  // A partner endpoint that says 410 Gone is disabled, loudly: tests make endpoints say it on purpose.
  if (entry.message.startsWith('partner endpoint answered 410 Gone')) return true;
  // And one line per failed delivery attempt: tests make endpoints fail on purpose.
  if (entry.message === 'partner event delivery failed; retried with backoff') return true;
  // Core's note on an attempt that finished after its activity's retry period ran out (a delivery
  // parked mid-attempt): the server already moved on, as it should.
  if (entry.message.startsWith('Activity not found on completion')) return true;
  // Each rampflow worker is a pair (workers/worker.ts): the service queue's polls no workflows, and says so.
  if (entry.message === 'No workflows registered, not polling for workflow tasks') return true;
  // A test's worker of workflows alone (no activities) says so too.
  if (entry.message === 'No activities registered, not polling for activity tasks') return true;
  // Core's note on a workflow task that finished after its workflow ended (a test terminating it).
  if (entry.message.startsWith('Task not found when completing')) return true;
  if (entry.message !== 'Activity failed') return false;
  const type = error?.type;
  return typeof type === 'string' && SERVICE_FAILURE_TYPES.has(type);
}

// Projects whose own setup installed a runtime first (the cluster and fault projects log errors only,
// quieter still) keep theirs.
try {
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => {
      if (!expected(entry)) printer.log(entry.level, entry.message, entry.meta);
    }),
    // Core's own lines come through the same logger, so the same rules keep them quiet.
    telemetryOptions: { logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN' }) } },
  });
} catch (error) {
  if (!(error instanceof IllegalStateError)) throw error;
}
