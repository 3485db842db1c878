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
  type ActivityInterfaceFor,
} from '@temporalio/workflow';
import type { DeliveryProgress, PartnerEventActivities } from '../../activities/partner-event-activities';
import { METRICS } from '../../observability/metric-catalogue';
import { isoNow } from '../common/timings';
import { indexChanged } from '../common/showing';
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
  const run = new DeliveryRun(input);
  run.enterStage();
  for (;;) {
    run.catchUpEndpointsBehind();
    await run.awaitProgress();
    if (run.busy()) continue;
    if (!run.anyParked()) return;
    // Parked, and the history has grown: the next run carries where each endpoint stands.
    return await run.continueStillParked();
  }
}

/** One run of a stream's delivery: where each endpoint stands, its handlers, and its steps. */
class DeliveryRun {
  private readonly stream: PartnerEventDeliveryInput['stream'];
  private readonly retrySeconds: number;
  private throughSequence: number;
  private readonly endpoints: Record<string, EndpointDeliveryState> = {};
  /** Endpoints an attempt is delivering to right now. */
  private readonly delivering = new Set<string>();
  private readonly deliveries: ActivityInterfaceFor<PartnerEventActivities>;

  constructor(private readonly input: PartnerEventDeliveryInput) {
    this.stream = input.stream;
    this.retrySeconds = input.retrySeconds ?? DEFAULT_DELIVERY_RETRY_SECONDS;
    this.throughSequence = input.throughSequence;
    this.learnEndpoints(input.endpoints);
    for (const [name, parked] of Object.entries(input.parked ?? {}))
      if (this.endpoints[name]) this.endpoints[name].parked = parked;

    this.deliveries = proxyActivities<PartnerEventActivities>({
      // One attempt delivers what the endpoint lacks, event by event, heartbeating each.
      startToCloseTimeout: '10 minutes',
      heartbeatTimeout: '2 minutes',
      scheduleToCloseTimeout: `${this.retrySeconds} seconds`,
      retry: { ...backoffFor(this.retrySeconds), backoffCoefficient: 2, nonRetryableErrorTypes: ['EndpointGone'] },
      summary: 'deliver partner events to an endpoint',
    });

    setHandler(morePartnerEventsSignal, (more) => {
      this.throughSequence = Math.max(this.throughSequence, more.throughSequence);
      this.learnEndpoints(more.endpoints);
    });
    setHandler(partnerEventDeliveryStateQuery, () => ({
      stream: this.stream,
      throughSequence: this.throughSequence,
      endpoints: this.endpoints,
    }));
    setHandler(resendUpdate, (request) => this.resend(request), {
      validator: (request: ResendRequest) => this.assertResendable(request),
    });
  }

  /** Starts an attempt for every endpoint that lacks events and is neither parked nor being delivered to. */
  catchUpEndpointsBehind(): void {
    for (const name of this.behind()) void this.catchUp(name);
  }

  /** Until an endpoint falls behind, or every attempt has ended with nothing parked (or the history grown long). */
  async awaitProgress(): Promise<void> {
    await condition(
      () =>
        this.behind().length > 0 || (this.delivering.size === 0 && (this.parkedNames().length === 0 || historyLong())),
    );
  }

  busy(): boolean {
    return this.delivering.size > 0 || this.behind().length > 0;
  }

  anyParked(): boolean {
    return this.parkedNames().length > 0;
  }

  /** Continues as new with where each endpoint stands and which are parked: one number and one reason each. */
  async continueStillParked(): Promise<never> {
    const progress: EndpointProgress = Object.fromEntries(
      Object.entries(this.endpoints).map(([name, state]) => [name, state.deliveredThrough]),
    );
    const parked = Object.fromEntries(this.parkedNames().map((name) => [name, this.endpoints[name]!.parked!]));
    return await continueAsNew<typeof partnerEventDelivery>({
      ...this.input,
      throughSequence: this.throughSequence,
      endpoints: progress,
      parked,
    });
  }

  /** One attempt, retried for the retry period: delivered, the endpoint gone, or its deliveries parked. */
  private async catchUp(name: string): Promise<void> {
    this.delivering.add(name);
    const endpoint = this.endpoints[name]!;
    try {
      const result = await this.deliveries.deliverPartnerEvents({
        stream: this.stream,
        endpoint: name,
        afterSequence: endpoint.deliveredThrough,
        throughSequence: this.throughSequence,
      });
      if (result.outcome === 'delivered')
        endpoint.deliveredThrough = Math.max(endpoint.deliveredThrough, result.deliveredThrough);
      // Removed from the configuration, or disabled (410): nothing more goes to it from here.
      else delete this.endpoints[name];
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      if (error.cause instanceof ApplicationFailure && error.cause.type === 'EndpointGone') delete this.endpoints[name];
      else {
        endpoint.parked = { reason: lastAttemptReason(error), since: isoNow() };
        countParked(name);
      }
    } finally {
      this.delivering.delete(name);
      this.enterStage();
    }
  }

  /** The operator's `resend`: every parked endpoint, or the one named, resumes with a fresh retry period. */
  private resend(request: ResendRequest): { resumed: string[] } {
    const resumed = this.parkedNames().filter((name) => request.endpoint === undefined || request.endpoint === name);
    for (const name of resumed) delete this.endpoints[name]!.parked;
    return { resumed };
  }

  private assertResendable(request: ResendRequest): void {
    if (request.endpoint !== undefined && this.endpoints[request.endpoint]?.parked === undefined)
      throw nothingParked(this.stream, request.endpoint);
    if (request.endpoint === undefined && this.parkedNames().length === 0) throw nothingParked(this.stream);
  }

  /** Enters the stage its endpoints put it in: NEEDS_ATTENTION while one is parked, else DELIVERING. */
  enterStage(): void {
    const parked = this.parkedNames();
    const stage = parked.length > 0 ? 'NEEDS_ATTENTION' : 'DELIVERING';
    indexChanged([{ key: RampStage, value: stage }]);
    setCurrentDetails(
      parked.length > 0
        ? `**NEEDS_ATTENTION**: deliveries to ${parked.join(', ')} parked after ${this.retrySeconds} s of retries`
        : `**DELIVERING** ${this.stream} through #${this.throughSequence}`,
    );
  }

  private learnEndpoints(progress: EndpointProgress): void {
    for (const [name, deliveredThrough] of Object.entries(progress)) this.endpoints[name] ??= { deliveredThrough };
  }

  private parkedNames(): string[] {
    return Object.keys(this.endpoints).filter((name) => this.endpoints[name]!.parked !== undefined);
  }

  private behind(): string[] {
    return Object.keys(this.endpoints).filter(
      (name) =>
        !this.endpoints[name]!.parked &&
        this.endpoints[name]!.deliveredThrough < this.throughSequence &&
        !this.delivering.has(name),
    );
  }
}

/** A `resend` with nothing to resume: the update is rejected before it reaches the history. */
function nothingParked(stream: string, endpoint?: string): Error {
  return new Error(
    endpoint === undefined
      ? `no deliveries are parked in ${stream}`
      : `no deliveries to ${endpoint} are parked in ${stream}`,
  );
}

function historyLong(): boolean {
  return workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > MAX_HISTORY_EVENTS;
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
