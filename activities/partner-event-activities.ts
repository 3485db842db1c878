/**
 * Partner events leave the workflows here (workflows/partner-events/outbox.ts): recorded in the event
 * store, then delivered to the partner's endpoints.
 *
 * Every batch is recorded by an activity (`recordPartnerEvents`: an append to the store; when the
 * stream's numbers are already held by an earlier run's events, it answers with the stream's last
 * sequence for the outbox to number on from; runs recorded before 1.4 call it as a local activity),
 * and what is recorded is pushed, only when some endpoint is enabled, by
 * `pushRecordedPartnerEvents`: bounded in time (it starts deliveries for half its start-to-close
 * timeout and abandons an answer still awaited at 90% of it), heartbeating each endpoint's progress
 * (a retry resumes after it), handing what it could not deliver in its time to the delivery
 * workflow, and, cancelled by a workflow that ends or continues as new, starting no further delivery
 * and answering where each endpoint stands (`handOffPartnerEvents` then hands on the rest). A partner
 * who reads events through the pull API pays one activity a batch (the recording) and no push. (0.x
 * runs recorded and pushed with `publishPartnerEvents` and `pushPartnerEvents`; 1.0 workers do not
 * register them.)
 *
 * On the happy path (every endpoint answers 2xx) the push delivers the batch itself, so a delivery
 * workflow exists only when one is needed. An endpoint that fails hands the stream to its delivery
 * workflow (workflows/partner-events/delivery.ts), which retries for days and parks after that.
 *
 * Order per stream holds because a stream's batches are published one at a time by the workflow that
 * owns the stream (the next batch is recorded only once the last one is pushed), and while the
 * stream's delivery workflow is open every batch goes to it instead of being delivered here. A
 * retried delivery carries the same `webhook-id` (the event's id), so a partner that received an
 * attempt whose answer was lost sees the id again and drops it.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { ApplicationFailureCategory } from '@temporalio/common';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { METRICS } from '../observability/metric-catalogue';
import type { PartnerEvent, PartnerEventStream } from '../partner-events/catalogue';
import type { DeliveryAttempt, PartnerEndpoint } from '../partner-events/endpoint-types';
import type { PartnerEventStore } from '../partner-events/store';
import { PartnerEventConflictError } from '../partner-events/store-errors';
import { subscribes } from '../partner-events/subscriptions';
import {
  morePartnerEventsSignal,
  partnerEventDeliveryWorkflowId,
  type EndpointProgress,
  type MorePartnerEvents,
  type PartnerEventDeliveryInput,
  type PartnerEventDeliveryWorkflow,
} from '../workflows/partner-events/messages';
import { RampExternalId, RampStage } from '../observability/search-attributes';

/** What the worker delivers with; without it partner events are off (nothing recorded or sent). */
export interface PartnerEventWiring {
  store: PartnerEventStore;
  endpoints: readonly PartnerEndpoint[];
  /**
   * One signed attempt (partner-events/deliver.ts, bound to its timeout and connection pool); `signal`
   * stops it at once, when its activity is cancelled or reaches its own deadline.
   */
  deliver: (endpoint: PartnerEndpoint, event: PartnerEvent, signal?: AbortSignal) => Promise<DeliveryAttempt>;
  /** How long a failing endpoint's deliveries are retried before they park; three days by default. */
  retrySeconds?: number;
}

export interface RecordRequest {
  stream: PartnerEventStream;
  events: PartnerEvent[];
}

export interface RecordOutcome {
  recorded: number;
  /** Endpoints enabled when the batch was recorded: only then does the workflow push it. */
  endpoints: number;
  /**
   * Nothing was recorded: the stream already holds these sequences under other events (an earlier
   * run of the stream). Its last sequence: the outbox numbers its events on from here.
   */
  heldThrough?: number;
  /**
   * Nothing was recorded: the stream already holds these events (by id) under other sequences. A run
   * reset to before a fact emits it again with the id it had (the outbox's fact ids); the outbox
   * drops them and numbers the rest on after `heldThrough`, so the partner never hears a fact twice.
   */
  alreadyHeld?: string[];
}

/** A stream's recorded events after `afterSequence` through `throughSequence`, to push or hand off. */
export interface PushRange {
  stream: PartnerEventStream;
  afterSequence: number;
  throughSequence: number;
}

export interface HandOffRequest extends PushRange {
  /** Where a push cancelled under way left each endpoint: the last sequence each has (the others have `afterSequence`). */
  stoppedAt?: EndpointProgress;
}

export interface PushOutcome {
  /** Endpoints the batch was delivered to here, and those handed to the delivery workflow. */
  delivered: string[];
  handedOff: string[];
  /** Cancelled before it was done: the last sequence each endpoint behind has (nothing was handed on). */
  stoppedAt?: EndpointProgress;
}

export interface DeliveryRequest {
  stream: PartnerEventStream;
  endpoint: string;
  afterSequence: number;
  throughSequence: number;
}

export type DeliveryOutcome =
  { outcome: 'delivered'; deliveredThrough: number } | { outcome: 'dropped'; reason: string };

/**
 * What a delivery attempt heartbeats: the last sequence the endpoint has (a retry resumes after it)
 * and the last failure, which the workflow reads from the timeout when the retry period runs out
 * (an attempt still running then leaves no failure of its own).
 */
export interface DeliveryProgress {
  through: number;
  lastFailure?: string;
}

/** A stream's events read from the store per page, when a delivery workflow catches an endpoint up. */
const PAGE = 100;

/**
 * A delivering attempt's time, as shares of its start-to-close timeout: it starts no delivery after
 * the first share (what is left is handed on, or left to the next attempt), and abandons an answer
 * still awaited at the second, before the server times it out: no attempt is still sending when its
 * retry, or the delivery workflow, starts. Cancelled (its workflow hands the stream over), it starts
 * no further delivery; the one under way may finish (an abandoned one the partner may well have
 * taken would be sent again by whoever goes on).
 */
const STARTS_WITHIN = 0.5;
const SENDS_WITHIN = 0.9;

/** How often a delivering attempt heartbeats while it waits on an answer: how soon it hears of a cancellation. */
const BEAT_MS = 1_000;

interface SendingWindow {
  /** Aborts the delivery under way, at the attempt's last moment to send. */
  signal: AbortSignal;
  mayStart(): boolean;
  close(): void;
}

/** The current attempt's window to send in, heartbeating `progress()` while it is open. */
function sendingWindow(progress: () => unknown): SendingWindow {
  const context = Context.current();
  const timeoutMs = context.info.startToCloseTimeoutMs;
  const startBy = Date.now() + timeoutMs * STARTS_WITHIN;
  const signal = AbortSignal.timeout(timeoutMs * SENDS_WITHIN);
  const beat = setInterval(() => context.heartbeat(progress()), BEAT_MS);
  return {
    signal,
    mayStart: () => !context.cancellationSignal.aborted && !signal.aborted && Date.now() < startBy,
    close: () => clearInterval(beat),
  };
}

export function createPartnerEventActivities(wiring: PartnerEventWiring | undefined) {
  async function enabledEndpoints(): Promise<PartnerEndpoint[]> {
    if (!wiring || wiring.endpoints.length === 0) return [];
    const disabled = new Set((await wiring.store.disabledEndpoints()).map((endpoint) => endpoint.name));
    return wiring.endpoints.filter((endpoint) => !disabled.has(endpoint.name));
  }

  /** Delivers events in order until one is not delivered; returns the last sequence the endpoint has. */
  async function deliverInOrder(
    endpoint: PartnerEndpoint,
    events: readonly PartnerEvent[],
    deliveredThrough: number,
    onDelivered?: (sequence: number) => void,
    window?: SendingWindow,
  ): Promise<{ through: number; stop?: DeliveryAttempt; outOfTime?: boolean }> {
    let through = deliveredThrough;
    for (const event of events) {
      if (event.sequence <= through) continue;
      if (window && !window.mayStart()) return { through, outOfTime: true };
      if (subscribes(endpoint, event.type)) {
        const attempt = await wiring!.deliver(endpoint, event, window?.signal);
        if (window?.signal.aborted) return { through, outOfTime: true };
        countAttempt(endpoint, attempt);
        if (attempt.outcome !== 'delivered') return { through, stop: attempt };
      }
      through = event.sequence;
      onDelivered?.(through);
    }
    return { through };
  }

  async function disable(endpoint: PartnerEndpoint): Promise<void> {
    await wiring!.store.disableEndpoint(endpoint.name, 'answered 410 Gone');
    Context.current().log.warn('partner endpoint answered 410 Gone: disabled until an operator enables it', {
      endpoint: endpoint.name,
    });
  }

  /**
   * Delivers a recorded range to every enabled endpoint within the attempt's time, heartbeating each
   * endpoint's progress (a retry resumes after it); what is not delivered then, or fails, goes to the
   * stream's delivery workflow. Cancelled, it starts no further delivery and answers where each
   * endpoint stands, for the workflow to hand on.
   */
  async function pushRange({ stream, afterSequence, throughSequence }: PushRange): Promise<PushOutcome> {
    const endpoints = await enabledEndpoints();
    if (!wiring || throughSequence <= afterSequence || endpoints.length === 0) return { delivered: [], handedOff: [] };
    const context = Context.current();
    const { client, info } = context;
    const resumed = (info.heartbeatDetails ?? {}) as EndpointProgress;
    const progress: EndpointProgress = Object.fromEntries(
      endpoints.map((endpoint) => [endpoint.name, Math.max(afterSequence, resumed[endpoint.name] ?? 0)]),
    );
    const handOn = (names: string[]) =>
      handOff(client, info.taskQueue, {
        stream,
        throughSequence,
        endpoints: Object.fromEntries(names.map((name) => [name, progress[name]!])),
        retrySeconds: wiring.retrySeconds,
      });

    // Earlier events of this stream are still on their way: these queue behind them.
    if (await isOpen(client, partnerEventDeliveryWorkflowId(stream))) {
      await handOn(Object.keys(progress));
      return { delivered: [], handedOff: Object.keys(progress) };
    }
    const window = sendingWindow(() => progress);
    const gone = new Set<string>();
    try {
      await Promise.all(
        endpoints.map(async (endpoint) => {
          while (progress[endpoint.name]! < throughSequence) {
            const page = (await wiring.store.stream(stream, progress[endpoint.name]!, PAGE)).filter(
              (event) => event.sequence <= throughSequence,
            );
            if (page.length === 0) return;
            const { stop, outOfTime } = await deliverInOrder(
              endpoint,
              page,
              progress[endpoint.name]!,
              (sequence) => {
                progress[endpoint.name] = sequence;
                context.heartbeat(progress);
              },
              window,
            );
            if (stop?.outcome === 'gone') {
              gone.add(endpoint.name);
              return disable(endpoint);
            }
            if (stop || outOfTime) return;
          }
        }),
      );
    } finally {
      window.close();
    }
    const reached = Object.keys(progress).filter((name) => !gone.has(name));
    // Cancelled: the workflow is handing the stream over (this attempt's own client calls are
    // cancelled with it). It answers, rather than fails, with where each endpoint stands, and the
    // workflow hands on from there: nothing it sent is sent again.
    if (context.cancellationSignal.aborted)
      return {
        delivered: [],
        handedOff: [],
        stoppedAt: Object.fromEntries(reached.map((name) => [name, progress[name]!])),
      };
    const behind = reached.filter((name) => progress[name]! < throughSequence);
    if (behind.length > 0) await handOn(behind);
    return {
      delivered: Object.keys(progress).filter((name) => !gone.has(name) && !behind.includes(name)),
      handedOff: behind,
    };
  }

  return {
    /**
     * Records a batch of a stream's events in the store; says how many endpoints are enabled, so the
     * workflow pushes it only to someone. Sequences another event already holds (an earlier run of the
     * stream): nothing is recorded, and the answer names the stream's last sequence, for the outbox to
     * number on from. Events the stream holds under other sequences (a fact a reset run emits again):
     * nothing is recorded either, and the answer names them too. One the stream holds at its own
     * sequence is this batch retried after a crash, and the append skips it.
     */
    async recordPartnerEvents({ stream, events }: RecordRequest): Promise<RecordOutcome> {
      if (!wiring || events.length === 0) return { recorded: 0, endpoints: 0 };
      const held = await wiring.store.sequencesOf(
        stream,
        events.map((event) => event.id),
      );
      const alreadyHeld = events
        .filter((event) => held.has(event.id) && held.get(event.id) !== event.sequence)
        .map((event) => event.id);
      if (alreadyHeld.length > 0)
        return { recorded: 0, endpoints: 0, heldThrough: await wiring.store.lastSequence(stream), alreadyHeld };
      try {
        await wiring.store.append(stream, events);
      } catch (error) {
        if (!(error instanceof PartnerEventConflictError)) throw error;
        return { recorded: 0, endpoints: 0, heldThrough: await wiring.store.lastSequence(stream) };
      }
      return { recorded: events.length, endpoints: (await enabledEndpoints()).length };
    },

    /** Delivers recorded events within the attempt's time; what is left goes to the stream's delivery workflow. */
    pushRecordedPartnerEvents: pushRange,

    /**
     * Hands a stream's recorded events after `afterSequence` to its delivery workflow for every enabled
     * endpoint: what a workflow does with pushes not done when it ends or continues as new. An endpoint
     * the delivery workflow already follows keeps the progress it has.
     */
    async handOffPartnerEvents({
      stream,
      afterSequence,
      throughSequence,
      stoppedAt,
    }: HandOffRequest): Promise<{ handedOff: string[] }> {
      const endpoints = await enabledEndpoints();
      if (!wiring || throughSequence <= afterSequence || endpoints.length === 0) return { handedOff: [] };
      const { client, info } = Context.current();
      const progress = Object.fromEntries(
        endpoints.map((endpoint) => [
          endpoint.name,
          Math.max(afterSequence, stoppedAt?.[endpoint.name] ?? afterSequence),
        ]),
      );
      const behind = Object.keys(progress).filter((name) => progress[name]! < throughSequence);
      if (behind.length === 0) return { handedOff: [] };
      await handOff(client, info.taskQueue, {
        stream,
        throughSequence,
        endpoints: Object.fromEntries(behind.map((name) => [name, progress[name]!])),
        retrySeconds: wiring.retrySeconds,
      });
      return { handedOff: behind };
    },

    /**
     * Delivers to one endpoint, in order, the stream's events after `afterSequence` through
     * `throughSequence`, heartbeating each one delivered so a retry resumes after it. A failed
     * attempt throws (the workflow's retry policy backs off); 410 Gone disables the endpoint.
     */
    async deliverPartnerEvents(request: DeliveryRequest): Promise<DeliveryOutcome> {
      const endpoint = wiring?.endpoints.find((configured) => configured.name === request.endpoint);
      if (!wiring || !endpoint) return { outcome: 'dropped', reason: 'the endpoint is no longer configured' };
      if ((await enabledEndpoints()).every((enabled) => enabled.name !== endpoint.name))
        return { outcome: 'dropped', reason: 'the endpoint is disabled' };
      const context = Context.current();
      const resumed = context.info.heartbeatDetails as DeliveryProgress | undefined;
      let after = Math.max(request.afterSequence, resumed?.through ?? 0);
      // Out of time, it answers how far it got, and the workflow asks again from there.
      const window = sendingWindow(() => ({ through: after }) satisfies DeliveryProgress);
      try {
        while (after < request.throughSequence) {
          const page = (await wiring.store.stream(request.stream, after, PAGE)).filter(
            (event) => event.sequence <= request.throughSequence,
          );
          // The publisher records before it hands off, so the store has them; a gap is not waited on forever.
          if (page.length === 0) {
            context.log.warn('partner events missing from the store; skipped', {
              stream: request.stream,
              after,
              through: request.throughSequence,
            });
            return { outcome: 'delivered', deliveredThrough: request.throughSequence };
          }
          const {
            through,
            stop: refused,
            outOfTime,
          } = await deliverInOrder(
            endpoint,
            page,
            after,
            (sequence) => {
              after = sequence;
              context.heartbeat({ through: sequence } satisfies DeliveryProgress);
            },
            window,
          );
          after = through;
          if (outOfTime) {
            if (context.cancellationSignal.aborted) await context.cancelled;
            return { outcome: 'delivered', deliveredThrough: after };
          }
          if (refused?.outcome === 'gone') {
            await disable(endpoint);
            throw ApplicationFailure.nonRetryable(`${endpoint.name} answered 410 Gone`, 'EndpointGone');
          }
          if (refused?.outcome === 'failed') {
            const reason = `${endpoint.name}: ${refused.reason}`;
            context.heartbeat({ through: after, lastFailure: reason } satisfies DeliveryProgress);
            // One line per attempt, and the failure BENIGN: an endpoint that is down is the partner's
            // to fix and this workflow's to retry, not a fault of ours, so the SDK logs it at DEBUG
            // rather than a WARN with a stack trace per attempt. The reason names the HTTP status or
            // the network error's code (partner-events/deliver.ts), never the URL or the events.
            context.log.warn('partner event delivery failed; retried with backoff', {
              endpoint: endpoint.name,
              reason: refused.reason,
              deliveredThrough: after,
            });
            throw ApplicationFailure.create({
              message: reason,
              type: 'DeliveryFailed',
              category: ApplicationFailureCategory.BENIGN,
            });
          }
        }
      } finally {
        window.close();
      }
      return { outcome: 'delivered', deliveredThrough: after };
    },
  };
}

export type PartnerEventActivities = ReturnType<typeof createPartnerEventActivities>;

async function isOpen(client: Client, workflowId: string): Promise<boolean> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

async function handOff(client: Client, taskQueue: string, input: PartnerEventDeliveryInput): Promise<void> {
  const { throughSequence, endpoints } = input;
  await client.workflow.signalWithStart<PartnerEventDeliveryWorkflow, [MorePartnerEvents]>('partnerEventDelivery', {
    workflowId: partnerEventDeliveryWorkflowId(input.stream),
    taskQueue,
    args: [input],
    signal: morePartnerEventsSignal,
    signalArgs: [{ throughSequence, endpoints }],
    staticSummary: `partner event deliveries of ${input.stream}`,
    // Listable at once: operators find parked deliveries by stage, a customer's by externalId.
    typedSearchAttributes: [
      { key: RampStage, value: 'DELIVERING' },
      ...(input.stream.startsWith('customer/')
        ? [{ key: RampExternalId, value: input.stream.slice('customer/'.length) }]
        : []),
    ],
  });
}

/** Counted per endpoint (the partner's own name for it, never a customer's) and outcome. */
function countAttempt(endpoint: PartnerEndpoint, attempt: DeliveryAttempt): void {
  Context.current()
    .metricMeter.createCounter(METRICS.partnerEventDeliveries.name, '1', METRICS.partnerEventDeliveries.help)
    .add(1, { endpoint: endpoint.name, outcome: attempt.outcome });
}
