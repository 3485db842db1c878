/**
 * Operators' view of partner event deliveries that need them: the streams whose delivery workflow
 * (`partner-events/<stream>`, workflows/partner-events/delivery.ts) parked an endpoint after its retry
 * period, and `resend`, which resumes them with a fresh one. Used by `rampflow partner-events parked`
 * and `resend`, and by the partner API's `/partner-events/parked` routes.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { PARTNER_EVENT_STREAM, type PartnerEventStream } from '../partner-events/catalogue';
import {
  partnerEventDeliveryStateQuery,
  partnerEventDeliveryWorkflowId,
  resendUpdate,
  type PartnerEventDeliveryState,
} from '../workflows/partner-events/messages';
import { explainTemporalError, RampflowInputError, RampflowNotFoundError } from './errors';
import { executeUpdateOnce } from './update-once';

export interface ParkedDeliveries {
  stream: PartnerEventStream;
  workflowId: string;
  /** Parked endpoints, each with the last sequence it has and the last attempt's reason. */
  endpoints: { name: string; deliveredThrough: number; reason: string; since: string }[];
  throughSequence: number;
  /** Set when the workflow could not answer (no worker polls its task queue): the stream is parked, its details unknown. */
  unreadable?: string;
}

/** A stream named by an operator or a partner: `customer/<externalId>` or `payout/<reference>`. */
export function parseStream(text: string): PartnerEventStream {
  if (!PARTNER_EVENT_STREAM.test(text))
    throw new RampflowInputError(['stream: expected customer/<externalId> or payout/<reference>']);
  return text as PartnerEventStream;
}

export class PartnerEventDeliveries {
  /** `taskQueue` scopes every listing to one deployment's workflows (several may share a namespace). */
  constructor(
    private readonly temporal: Client,
    private readonly taskQueue: string,
  ) {}

  /**
   * Streams with parked deliveries (visibility's order: newest first), at most `limit`, each one's
   * state asked of its workflow (a worker answers; a stream whose workflow cannot answer is listed as
   * unreadable rather than hidden).
   */
  async parked(limit = 100): Promise<ParkedDeliveries[]> {
    const query = `WorkflowType = 'partnerEventDelivery' AND ExecutionStatus = 'Running' AND RampStage = 'NEEDS_ATTENTION' AND TaskQueue = '${this.taskQueue}'`;
    const found: string[] = [];
    for await (const execution of this.temporal.workflow.list({ query })) {
      found.push(execution.workflowId);
      if (found.length >= limit) break;
    }
    const listed = await Promise.all(found.map((workflowId) => this.parkedIn(workflowId)));
    return listed.filter(
      (parked) => parked !== undefined && (parked.unreadable !== undefined || parked.endpoints.length > 0),
    ) as ParkedDeliveries[];
  }

  private async parkedIn(workflowId: string): Promise<ParkedDeliveries | undefined> {
    try {
      const state = await this.stateOf(workflowId);
      return state && toParked(state);
    } catch (error) {
      const stream = workflowId.slice(
        partnerEventDeliveryWorkflowId('' as PartnerEventStream).length,
      ) as PartnerEventStream;
      return {
        stream,
        workflowId,
        endpoints: [],
        throughSequence: 0,
        unreadable: error instanceof Error ? error.message : String(error),
      };
    }
  }

  async state(stream: PartnerEventStream): Promise<PartnerEventDeliveryState> {
    const state = await this.stateOf(partnerEventDeliveryWorkflowId(stream));
    if (!state) throw new RampflowNotFoundError(`deliveries of ${stream}`);
    return state;
  }

  /** Resumes a stream's parked deliveries (every parked endpoint, or the one named). */
  async resend(stream: PartnerEventStream, endpoint?: string): Promise<{ resumed: string[] }> {
    const handle = this.temporal.workflow.getHandle(partnerEventDeliveryWorkflowId(stream));
    try {
      return await executeUpdateOnce(handle, resendUpdate, [endpoint === undefined ? {} : { endpoint }]);
    } catch (error) {
      throw explainTemporalError(error, `deliveries of ${stream}`, 'resend');
    }
  }

  private async stateOf(workflowId: string): Promise<PartnerEventDeliveryState | undefined> {
    try {
      return await this.temporal.workflow.getHandle(workflowId).query(partnerEventDeliveryStateQuery);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
  }
}

function toParked(state: PartnerEventDeliveryState): ParkedDeliveries {
  const endpoints = Object.entries(state.endpoints)
    .filter(([, endpoint]) => endpoint.parked !== undefined)
    .map(([name, endpoint]) => ({
      name,
      deliveredThrough: endpoint.deliveredThrough,
      reason: endpoint.parked!.reason,
      since: endpoint.parked!.since,
    }));
  return {
    stream: state.stream,
    workflowId: partnerEventDeliveryWorkflowId(state.stream),
    endpoints,
    throughSequence: state.throughSequence,
  };
}
