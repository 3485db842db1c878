/**
 * The durable handoff: start the ramp-event workflow whose ID is the event's de-duplication key.
 *
 * - A first delivery starts it: answer 200 once Temporal has accepted the start (the event is then
 *   in Temporal's durable history and no longer ours to lose).
 * - A repeat finds it: WorkflowExecutionAlreadyStartedError, answered 200. The reuse policy
 *   REJECT_DUPLICATE makes this hold after the first workflow has completed too, for as long as
 *   Temporal keeps it (the namespace's retention period; keep it above the service's ~8-day retry
 *   span). Past that a repeat starts a new run, whose signal the target ignores: it applies each key
 *   once.
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

export async function handOff(options: HandoffOptions, workflowId: string, input: RampEventInput): Promise<'started' | 'duplicate'> {
  const { client } = options;
  try {
    await client.connection.withDeadline(Date.now() + options.timeoutMs, () =>
      client.workflow.start<typeof rampEvent>('rampEvent', {
        workflowId,
        taskQueue: options.taskQueue,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        args: [input],
        typedSearchAttributes: [{ key: RampStage, value: EVENT_STAGE.RECEIVED }],
        staticSummary: `${input.event} ${input.payloadId}${input.deliveredAs ? ` (delivered as ${input.deliveredAs})` : ''}`,
      }),
    );
    return 'started';
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return 'duplicate';
    throw new TemporalUnavailable(error);
  }
}
