/**
 * The delivery of one stream's partner events (a customer's, or a payout's) to the partner's
 * endpoints, `partner-events/<stream>`, when delivering them as they were published did not work: an
 * endpoint was down, slow or failing (activities/partner-event-activities.ts hands them over).
 *
 * Per endpoint, events go out in sequence order, one attempt at a time: an activity delivers every
 * event the endpoint lacks and heartbeats each one delivered, so a retry resumes after it. Attempts
 * back off exponentially (10 s doubling to an hour) for the retry period, three days by default; then
 * the endpoint's deliveries park, visible to operators as NEEDS_ATTENTION, until an operator sends
 * `resend`. A 410 Gone disables the endpoint (it is no longer delivered to; the pull API keeps every
 * event). Other endpoints go on meanwhile. When every endpoint has everything, the run ends: a quiet
 * stream has no workflow open, and the next publish delivers directly again.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  continueAsNew,
  metricMeter,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { DeliveryProgress, PartnerEventActivities } from '../../activities/partner-event-activities';
import { METRICS } from '../../observability/metric-catalogue';
import { isoNow } from '../common/clock';
import { indexChanged } from '../common/indexing';
import {
  DEFAULT_DELIVERY_RETRY_SECONDS,
  morePartnerEventsSignal,
  partnerEventDeliveryStateQuery,
  resendUpdate,
  type EndpointDeliveryState,
  type EndpointProgress,
  type PartnerEventDeliveryInput,
  type ResendRequest,
} from './messages';
import { RampStage } from '../../observability/search-attributes';

/** Continue as new before the history grows long; the carried state is one number per endpoint. */
const MAX_HISTORY_EVENTS = 2_000;

export async function partnerEventDelivery(input: PartnerEventDeliveryInput): Promise<void> {
  const { stream } = input;
  const retrySeconds = input.retrySeconds ?? DEFAULT_DELIVERY_RETRY_SECONDS;
  let throughSequence = input.throughSequence;
  const endpoints: Record<string, EndpointDeliveryState> = {};
  const delivering = new Set<string>();
  learnEndpoints(input.endpoints);
  for (const [name, parked] of Object.entries(input.parked ?? {})) if (endpoints[name]) endpoints[name].parked = parked;

  const deliveries = proxyActivities<PartnerEventActivities>({
    // One attempt delivers what the endpoint lacks, event by event, heartbeating each.
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '2 minutes',
    scheduleToCloseTimeout: `${retrySeconds} seconds`,
    retry: { ...backoffFor(retrySeconds), backoffCoefficient: 2, nonRetryableErrorTypes: ['EndpointGone'] },
    summary: 'deliver partner events to an endpoint',
  });

  function learnEndpoints(progress: EndpointProgress): void {
    for (const [name, deliveredThrough] of Object.entries(progress)) endpoints[name] ??= { deliveredThrough };
  }

  setHandler(morePartnerEventsSignal, (more) => {
    throughSequence = Math.max(throughSequence, more.throughSequence);
    learnEndpoints(more.endpoints);
  });
  setHandler(partnerEventDeliveryStateQuery, () => ({ stream, throughSequence, endpoints }));
  setHandler(
    resendUpdate,
    (request) => {
      const resumed = parkedNames().filter((name) => request.endpoint === undefined || request.endpoint === name);
      for (const name of resumed) delete endpoints[name]!.parked;
      return { resumed };
    },
    {
      validator: (request: ResendRequest) => {
        if (request.endpoint !== undefined && endpoints[request.endpoint]?.parked === undefined)
          throw new Error(`no deliveries to ${request.endpoint} are parked in ${stream}`);
        if (request.endpoint === undefined && parkedNames().length === 0)
          throw new Error(`no deliveries are parked in ${stream}`);
      },
    },
  );

  const parkedNames = () => Object.keys(endpoints).filter((name) => endpoints[name]!.parked !== undefined);
  const behind = () =>
    Object.keys(endpoints).filter(
      (name) =>
        !endpoints[name]!.parked && endpoints[name]!.deliveredThrough < throughSequence && !delivering.has(name),
    );
  const historyLong = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > MAX_HISTORY_EVENTS;

  async function catchUp(name: string): Promise<void> {
    delivering.add(name);
    const endpoint = endpoints[name]!;
    try {
      const result = await deliveries.deliverPartnerEvents({
        stream,
        endpoint: name,
        afterSequence: endpoint.deliveredThrough,
        throughSequence,
      });
      if (result.outcome === 'delivered')
        endpoint.deliveredThrough = Math.max(endpoint.deliveredThrough, result.deliveredThrough);
      // Removed from the configuration, or disabled (410): nothing more goes to it from here.
      else delete endpoints[name];
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      if (error.cause instanceof ApplicationFailure && error.cause.type === 'EndpointGone') delete endpoints[name];
      else {
        endpoint.parked = { reason: lastAttemptReason(error), since: isoNow() };
        countParked(name);
      }
    } finally {
      delivering.delete(name);
      show();
    }
  }

  function show(): void {
    const parked = parkedNames();
    const stage = parked.length > 0 ? 'NEEDS_ATTENTION' : 'DELIVERING';
    indexChanged([{ key: RampStage, value: stage }]);
    setCurrentDetails(
      parked.length > 0
        ? `**NEEDS_ATTENTION**: deliveries to ${parked.join(', ')} parked after ${retrySeconds} s of retries`
        : `**DELIVERING** ${stream} through #${throughSequence}`,
    );
  }

  show();
  for (;;) {
    for (const name of behind()) void catchUp(name);
    await condition(
      () => behind().length > 0 || (delivering.size === 0 && (parkedNames().length === 0 || historyLong())),
    );
    if (delivering.size > 0 || behind().length > 0) continue;
    if (parkedNames().length === 0) return;
    // Parked, and the history has grown: the next run carries where each endpoint stands.
    const progress: EndpointProgress = Object.fromEntries(
      Object.entries(endpoints).map(([name, state]) => [name, state.deliveredThrough]),
    );
    const parked = Object.fromEntries(parkedNames().map((name) => [name, endpoints[name]!.parked!]));
    return await continueAsNew<typeof partnerEventDelivery>({ ...input, throughSequence, endpoints: progress, parked });
  }
}

/**
 * Counted through the workflow metric meter (muted while a history replays, no commands): one count
 * per endpoint whose deliveries park, labelled with the partner's configured name for it, never a stream.
 */
function countParked(endpoint: string): void {
  metricMeter
    .createCounter(METRICS.partnerEventDeliveriesParked.name, '1', METRICS.partnerEventDeliveriesParked.help)
    .add(1, { workflow_type: workflowInfo().workflowType, endpoint });
}

/**
 * The backoff scales with the retry period: over the default three days, 10 s doubling to an hour
 * (about 80 attempts); a test's period of minutes keeps the same shape in proportion.
 */
function backoffFor(retrySeconds: number): { initialInterval: string; maximumInterval: string } {
  const initialMs = Math.max(100, Math.round((retrySeconds * 1000 * 10) / DEFAULT_DELIVERY_RETRY_SECONDS));
  const maximumMs = Math.max(1000, Math.round((retrySeconds * 1000) / 72));
  return { initialInterval: `${initialMs} milliseconds`, maximumInterval: `${maximumMs} milliseconds` };
}

/**
 * The reason the last attempt gave (a status, a timeout; never an event's content): what the attempts
 * heartbeat when the retry period ran out, else the innermost cause.
 */
function lastAttemptReason(error: ActivityFailure): string {
  const progress =
    error.cause instanceof TimeoutFailure
      ? (error.cause.lastHeartbeatDetails as DeliveryProgress | undefined)
      : undefined;
  if (progress?.lastFailure) return progress.lastFailure;
  let reason: Error = error;
  while (reason.cause instanceof Error) reason = reason.cause;
  return reason.message;
}
