/**
 * The durable handoff: start the ramp-event workflow whose ID is the event's de-duplication key.
 *
 * - A first delivery starts it: answer 200 once Temporal has accepted the start (the event is then
 *   in Temporal's durable history and no longer ours to lose).
 * - A repeat finds it: WorkflowExecutionAlreadyStartedError, answered 200 as a duplicate, however its
 *   first run ended (`REJECT_DUPLICATE`), for as long as Temporal keeps that run (the namespace's
 *   retention period; keep it above the service's ~8-day retry span). A replayed delivery therefore
 *   never starts a second run: a run that ended parked is replayed by an operator
 *   (`rampflow events replay`), and what it would have told its target reaches it by the target's own
 *   reads and reconciliation. (Before, a redelivery of an event whose run ended parked or dismissed
 *   started a new run: a leaked token replaying made-up deliveries bought a workflow and two reads
 *   each time.) Past retention a repeat starts a new run, whose signal the target ignores: it applies
 *   each key once, and state only moves forward.
 * - Anything else (Temporal unreachable, overloaded, timing out) is TemporalUnavailable: the receiver
 *   answers 503 so the service retries later.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { rampEvent } from '../workflows/ramp-event/workflow';
import { EVENT_STAGE, type RampEventInput } from '../workflows/ramp-event/events';
import { RampStage } from '../observability/search-attributes';
import { PRIORITY } from '../workflows/common/calls';

export class TemporalUnavailable extends Error {
  constructor(cause: unknown) {
    // The cause's message is the gRPC status text; it carries no secret (the token never reaches Temporal).
    super(`Temporal did not accept the start: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'TemporalUnavailable';
  }
}

export interface HandoffOptions {
  client: Client;
  taskQueue: string;
  /** How long to wait for Temporal; well inside the service's 30 s, so a slow start answers 503, not a timeout. */
  timeoutMs: number;
}

export async function handOff(
  options: HandoffOptions,
  workflowId: string,
  input: RampEventInput,
): Promise<'started' | 'duplicate'> {
  const { client } = options;
  try {
    return await client.connection.withDeadline(Date.now() + options.timeoutMs, async () => {
      try {
        await client.workflow.start<typeof rampEvent>('rampEvent', {
          workflowId,
          taskQueue: options.taskQueue,
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          args: [input],
          typedSearchAttributes: [{ key: RampStage, value: EVENT_STAGE.RECEIVED }],
          // Anyone holding the webhook token can start these: when the workflow task queue is behind, the
          // server hands out journeys', deposits' and payouts' tasks first (the ramp-event's own service
          // reads are LOW already, workflows/ramp-event/workflow.ts).
          priority: { priorityKey: PRIORITY.LOW },
          staticSummary: `${input.event} ${input.payloadId}${input.deliveredAs ? ` (delivered as ${input.deliveredAs})` : ''}`,
        });
        return 'started' as const;
      } catch (error) {
        if (error instanceof WorkflowExecutionAlreadyStartedError) return 'duplicate' as const;
        throw error;
      }
    });
  } catch (error) {
    throw new TemporalUnavailable(error);
  }
}
