/**
 * The client's event part: delivered webhooks that need an operator's eye (parked, or still looking
 * for their target), and replaying one once its cause is fixed. RampflowClient
 * (client/rampflow-client.ts) offers these as its own.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { RampEventResult } from '../workflows/ramp-event/events';
import { explainTemporalError, RampflowInputError, RampflowUpdateRefusedError } from './errors';
import { listed, withEnd } from './listing';
import { eventListQuery, toEventListing, type EventFilter, type EventListing } from './visibility';
import type { EndFailure } from './workflow-end';
import { resetToEvent } from './workflow-reset';

/** A listed event, with why it was parked once it has ended parked, or how it ended when its workflow failed or was terminated. */
export type EventReport = EventListing &
  Partial<Pick<RampEventResult, 'outcome' | 'parkCode' | 'reason' | 'target'>> & { failure?: EndFailure };

export class EventOperations {
  /** @param temporalClient a connected Temporal client (its namespace is the events' namespace) */
  constructor(private readonly temporalClient: Client) {}

  /**
   * Delivered webhooks that need an operator's eye, newest first: those parked for good
   * (EVENT_UNROUTED, with the park code and reason from their result) and those still looking for
   * their target (EVENT_WAITING). `all` lists every event.
   */
  async listEvents(filter: EventFilter = {}): Promise<EventReport[]> {
    const listings = await listed(this.temporalClient, eventListQuery(filter), toEventListing);
    return Promise.all(
      listings.map(async (listing): Promise<EventReport> => {
        if (listing.closeTime === undefined || listing.status !== 'COMPLETED')
          return withEnd(this.temporalClient, listing);
        const result = (await this.temporalClient.workflow
          .getHandle(listing.workflowId, listing.runId)
          .result()) as RampEventResult;
        const { outcome, parkCode, reason, target } = result;
        return {
          ...listing,
          outcome,
          ...(parkCode ? { parkCode } : {}),
          ...(reason ? { reason } : {}),
          ...(target ? { target } : {}),
        };
      }),
    );
  }

  /**
   * Routes a finished event again from the start, once its cause is fixed (say, the journey it was
   * for now exists): the event's workflow is reset to its first workflow task, so it re-reads the
   * record and looks for the target afresh. A later delivery of the event would only be a duplicate,
   * which is why this exists. Targets apply each event key once, so replaying a routed event is harmless.
   */
  async replayEvent(
    workflowId: string,
    reason = 'replayed by an operator',
  ): Promise<{ workflowId: string; runId: string }> {
    if (!/^event\/[^/]+\/.+/.test(workflowId))
      throw new RampflowInputError([`workflowId: expected event/<EVENT>/<payload id>, got '${workflowId}'`]);
    const handle = this.temporalClient.workflow.getHandle(workflowId);
    const description = await handle.describe().catch((error: unknown) => {
      throw explainTemporalError(error, `event ${workflowId}`);
    });
    if (description.status.name === 'RUNNING') {
      throw new RampflowUpdateRefusedError(
        'replay',
        `event ${workflowId}`,
        'it is still running (looking for its target); replay it once it has ended',
      );
    }
    const history = await handle.fetchHistory();
    const firstTask = history.events?.find(
      (event) => event.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
    );
    if (!firstTask?.eventId)
      throw new RampflowUpdateRefusedError(
        'replay',
        `event ${workflowId}`,
        'its history has no completed workflow task to go back to',
      );
    const runId = await resetToEvent(this.temporalClient, workflowId, description.runId, firstTask.eventId, reason);
    return { workflowId, runId };
  }
}
