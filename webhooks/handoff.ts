/**
 * The durable handoff: start the ramp-event workflow whose ID is the event's de-duplication key.
 *
 * - A first delivery starts it: answer 200 once Temporal has accepted the start (the event is then
 *   in Temporal's durable history and no longer ours to lose).
 * - A repeat finds it: WorkflowExecutionAlreadyStartedError, answered 200. This holds after the first
 *   workflow has completed too, for as long as Temporal keeps it (the namespace's retention period;
 *   keep it above the service's ~8-day retry span), with one exception: an event whose workflow
 *   ended without reaching its target (parked, RampStage EVENT_UNROUTED, e.g. the service failing
 *   while it routed) is not used up. Its redelivery starts a new run, which routes it again. Past
 *   retention a repeat starts a new run too, whose signal the target ignores: it applies each key
 *   once, and state only moves forward.
 * - Anything else (Temporal unreachable, overloaded, timing out) is TemporalUnavailable: the receiver
 *   answers 503 so the service retries later.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { rampEvent } from '../workflows/ramp-event';
import { EVENT_STAGE, type RampEventInput } from '../workflows/ramp-event-types';
import { RampStage } from '../workflows/search-attributes';

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

export async function handOff(options: HandoffOptions, workflowId: string, input: RampEventInput): Promise<'started' | 'duplicate' | 'routed-again'> {
  const { client } = options;
  const start = (reusePolicy: WorkflowIdReusePolicy) =>
    client.workflow.start<typeof rampEvent>('rampEvent', {
      workflowId,
      taskQueue: options.taskQueue,
      workflowIdReusePolicy: reusePolicy,
      args: [input],
      typedSearchAttributes: [{ key: RampStage, value: EVENT_STAGE.RECEIVED }],
      staticSummary: `${input.event} ${input.payloadId}${input.deliveredAs ? ` (delivered as ${input.deliveredAs})` : ''}`,
    });
  try {
    return await client.connection.withDeadline(Date.now() + options.timeoutMs, async () => {
      try {
        await start(WorkflowIdReusePolicy.REJECT_DUPLICATE);
        return 'started' as const;
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        if (!(await endedUnrouted(client, workflowId))) return 'duplicate' as const;
        try {
          // A run that is still open (another redelivery got here first) keeps this a duplicate.
          await start(WorkflowIdReusePolicy.ALLOW_DUPLICATE);
          return 'routed-again' as const;
        } catch (again) {
          if (again instanceof WorkflowExecutionAlreadyStartedError) return 'duplicate' as const;
          throw again;
        }
      }
    });
  } catch (error) {
    throw new TemporalUnavailable(error);
  }
}

/** Whether the event's last run has ended without reaching its target (so a redelivery should route it again). */
async function endedUnrouted(client: Client, workflowId: string): Promise<boolean> {
  const description = await client.workflow.getHandle(workflowId).describe();
  const stage = description.typedSearchAttributes.get(RampStage);
  // A dismissed event (the service did not have the record yet) is not used up either.
  return description.status.name !== 'RUNNING' && (stage === EVENT_STAGE.UNROUTED || stage === EVENT_STAGE.DISMISSED);
}
