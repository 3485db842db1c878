/**
 * The ramp-event workflow, `event/<EVENT_NAME>/<payload.id>`: one delivered webhook, verified and
 * routed (DESIGN, "Events").
 *
 * The receiver starts it with the event's name, the payload's id and a compact hint; its ID is the
 * de-duplication key, so a second delivery (or the same event under its older name) finds it already
 * there. It then:
 * 1. re-reads the record through the signed API: the payload is only a hint, and where it disagrees
 *    the service's version wins (the disagreement is logged and kept in the result);
 * 2. waits until the service's record shows what the event claims (a spoofed "deposit approved" for a
 *    deposit the service has not confirmed never gets further than this);
 * 3. finds the target: customer events by externalId (`customer/<externalId>`); virtual account and
 *    deposit address events by their customer's externalId; deposit events by their id
 *    (`deposit/<id>`), trade events by `deposit.id`, payment events by the trade their `reference`
 *    names, then that trade's deposit, or else by the payout (`payout/<reference>`) the reference
 *    names;
 * 4. signals it with the event key (`EVENT/payload.id`, applied at most once by the target) and the
 *    service's record, and finishes. A deposit's workflow is signalled with signal-with-start, so it
 *    is started by whichever event about it comes first.
 * A target that does not exist yet is retried with workflow sleeps (doubling pauses) for a bounded
 * time. An event that never reaches a target ends parked: RampStage = EVENT_UNROUTED, the reason in
 * the current details and the result. A target that has already finished ends TARGET_CLOSED.
 *
 * Within budget: the reads run on the service task queue at the
 * lowest priority, behind signups, payouts and deposits, since a leaked webhook token can start these
 * workflows; a read that cannot be made within the event's wait (targetWaitSeconds) and a claim the
 * service still does not confirm when the wait ends are dismissed, not parked, so forged deliveries
 * leave nothing for operators. What the event would have told its target reaches it by the target's
 * own reads (its polls) and reconciliation.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  sleep,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { DepositDelivery, DepositDeliveryActivities } from '../../activities/deposit-delivery';
import type { EventRoutingActivities } from '../../activities/event-routing-activities';
import type { EventName } from '../../ramp/events';
import { ACTIVITY_RETRY, PRIORITY, serviceActivities } from '../common/calls';
import { workflowNow } from '../common/timings';
import { countDismissed, type DismissReason, indexChanged, type IndexEntry } from '../common/showing';
import { customerEventSignal, depositAddressEventSignal, virtualAccountEventSignal } from '../common/messages';
import { payoutPaymentEventSignal } from '../common/messages';
import {
  DEFAULT_RAMP_EVENT_TIMINGS,
  EVENT_STAGE,
  type EventResolution,
  type EventResource,
  type EventRoute,
  hintDisagreements,
  type ParkCode,
  type RampEventInput,
  type RampEventResult,
  type RampEventTimings,
  serviceConfirms,
  targetOf,
} from './events';
import { RampCustomerId, RampExternalId, RampStage } from '../../observability/search-attributes';

// Reads of the service retry for about an hour (the service may be briefly down); a refusal a retry
// cannot fix (bad credentials) fails at once and parks the event.
const act = proxyActivities<EventRoutingActivities>({ startToCloseTimeout: '1 minute', retry: ACTIVITY_RETRY });
// A delivery to a deposit runs as a local activity, inside the workflow task that decided it: no
// activity task to schedule, poll and complete. Its retries back off inside the worker, then on server
// timers once a pause exceeds a minute.
const local = proxyLocalActivities<DepositDeliveryActivities>({
  startToCloseTimeout: '1 minute',
  retry: ACTIVITY_RETRY,
});
// The re-read waits its turn on the service task queue at the lowest priority, not as a local activity:
// anyone holding the webhook token can start these workflows, and local activities skip the queue's
// priorities (signups and payouts first) and its partner-wide dispatch rate.
const queued = serviceActivities<EventRoutingActivities>(
  { startToCloseTimeout: '1 minute', retry: ACTIVITY_RETRY },
  () => PRIORITY.LOW,
);

/** Why the event has not reached its target yet: it looks again, or parks with this when the wait ends. */
interface Pending {
  code: ParkCode;
  reason: string;
}

type Routed = Extract<EventResolution, { kind: 'routed' }>;
type DepositRoute = Extract<EventRoute, { signal: 'deposit' | 'trade' | 'payment' }>;
type SignalledRoute = Exclude<EventRoute, DepositRoute>;

const hasEnded = (step: object): step is RampEventResult => 'outcome' in step;

export async function rampEvent(input: RampEventInput): Promise<RampEventResult> {
  const run = new RampEventRun(input);
  if (input.resource === undefined) {
    return run.park({
      code: 'UNKNOWN_EVENT',
      reason: `"${input.event}" is not an event name rampflow knows; nothing was routed`,
    });
  }
  return await run.awaitClaim(input.resource);
}

/** One delivered event: what the service's record showed of it, and the steps that take it to its target. */
class RampEventRun {
  private readonly timings: RampEventTimings;
  private readonly base: Pick<RampEventResult, 'event' | 'payloadId'>;
  /** The event's name, once awaitClaim has found it is one rampflow knows. */
  private readonly event: EventName;
  private hintDisagreed: string[] | undefined;
  private serviceStatus: string | undefined;
  /** The customer the event is about, once known: indexed with the next stage shown (an event that waits or parks). */
  private customerIndex: IndexEntry[] = [];
  private indexed = false;
  private lookedAgainForRecord = false;

  constructor(private readonly input: RampEventInput) {
    this.timings = { ...DEFAULT_RAMP_EVENT_TIMINGS, ...input.timings };
    this.base = { event: input.event, payloadId: input.payloadId };
    this.event = input.event as EventName;
  }

  /**
   * Reads the record until the service's record confirms what the event claims and its target takes the
   * signal, looking again with doubling pauses; the wait ends at targetWaitSeconds, parked or dismissed.
   */
  async awaitClaim(resource: EventResource): Promise<RampEventResult> {
    const deadline = workflowNow() + this.timings.targetWaitSeconds * 1000;
    let pauseSeconds = this.timings.firstRetrySeconds;
    for (;;) {
      const resolution = await this.readRecord(resource, deadline);
      if (hasEnded(resolution)) return resolution;
      let pending: Pending;
      if (resolution.kind === 'unroutable') return this.park({ code: resolution.code, reason: resolution.reason });
      if (resolution.kind === 'record-not-found') {
        pending = { code: 'RECORD_NOT_FOUND', reason: `the service has no ${resource} ${this.input.payloadId}` };
        // A delivery about a record the service does not have parks nothing (workflows/common/trust.ts): after
        // one more look, a grace period later, it is dismissed and counted.
        if (this.lookedAgainForRecord) return this.dismiss(pending.reason);
        await this.graceForRecord(pending.reason);
        continue;
      } else {
        const routed = await this.route(resolution, resource);
        if (hasEnded(routed)) return routed;
        pending = routed;
      }

      const left = deadline - workflowNow();
      if (left <= 0)
        return pending.code === 'DISPUTED' ? this.dismiss(pending.reason, 'claim-not-confirmed') : this.park(pending);
      this.enterStage(EVENT_STAGE.WAITING, `${pending.reason}; looking again for up to ${Math.ceil(left / 1000)} s`);
      await sleep(Math.min(pauseSeconds * 1000, left), { summary: pending.reason });
      pauseSeconds = Math.min(pauseSeconds * 2, this.timings.maxRetrySeconds);
    }
  }

  /** Re-reads the record through the signed API; a read that fails ends the event (dismissed within budget, or parked). */
  private async readRecord(resource: EventResource, deadline: number): Promise<EventResolution | RampEventResult> {
    const { payloadId } = this.input;
    try {
      return await queued.resolveRampEvent.executeWithOptions(
        {
          startToCloseTimeout: '1 minute',
          retry: ACTIVITY_RETRY,
          summary: `re-read ${resource} ${payloadId} from the service`,
          // At the lowest priority a read may wait behind a backlog that never clears: it waits no
          // longer than the event would wait for its target, then the event is dismissed.
          scheduleToCloseTimeout: Math.max(deadline - workflowNow(), 1000),
        },
        [{ resource, payloadId }],
      );
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      if (error.cause instanceof TimeoutFailure) {
        return this.dismiss(
          `${resource} ${payloadId} could not be read from the service within ${this.timings.targetWaitSeconds} s`,
          'not-read-in-time',
        );
      }
      const cause =
        error.cause instanceof ApplicationFailure
          ? `${error.cause.type ?? 'failure'}: ${error.cause.message}`
          : error.message;
      return this.park({
        code: 'SERVICE_ERROR',
        reason: `reading ${resource} ${payloadId} from the service failed (${cause})`,
      });
    }
  }

  /** The service has no such record (yet): one more look, a grace period later. */
  private async graceForRecord(reason: string): Promise<void> {
    this.lookedAgainForRecord = true;
    this.enterStage(EVENT_STAGE.WAITING, `${reason}; looking once more in ${this.timings.notFoundGraceSeconds} s`);
    await sleep(this.timings.notFoundGraceSeconds * 1000, { summary: reason });
  }

  /**
   * Signals the target the service's record names, once the record confirms the event's claim. Pending
   * while it does not, or while the target is not running (yet).
   */
  private async route({ route, status }: Routed, resource: EventResource): Promise<RampEventResult | Pending> {
    this.serviceStatus = status;
    if (!this.indexed) {
      this.indexed = true;
      this.indexFor(route);
      this.compareHint(status, route);
    }
    const target = targetOf(route);
    if (!serviceConfirms(this.event, status)) {
      return {
        code: 'DISPUTED',
        reason: `the service says ${resource} ${this.input.payloadId} is ${status}, which does not confirm ${this.event}`,
      };
    }
    if (route.signal === 'deposit' || route.signal === 'trade' || route.signal === 'payment')
      return await this.deliverToDeposit(target, route);
    if (await this.signalTarget(target, route)) {
      this.routed(`signalled ${target} (${status})`);
      return { ...this.base, outcome: 'ROUTED', target, ...this.extras() };
    }
    const targetState = await act.describeTargetWorkflow.executeWithOptions(
      { startToCloseTimeout: '30 seconds', retry: ACTIVITY_RETRY, summary: `is ${target} running?` },
      [target],
    );
    if (targetState === 'CLOSED') return this.targetClosed(target);
    // RUNNING here means a journey was between runs (continue-as-new): simply try again.
    return { code: 'NO_TARGET', reason: `no workflow ${target} is running (yet)` };
  }

  /**
   * The service's record wins. Payloads are snapshots, so a late delivery of an event the service has
   * since moved past is routine (info); a claim the service does not back is worth an operator's look (warn).
   */
  private compareHint(status: string, route: EventRoute): void {
    this.hintDisagreed = hintDisagreements(this.input.hint, status, route);
    if (this.hintDisagreed.length === 0) return;
    const level = serviceConfirms(this.event, status) ? 'info' : 'warn';
    log[level]("webhook payload disagrees with the service; using the service's record", {
      ...this.base,
      fields: this.hintDisagreed,
      hintStatus: this.input.hint.status,
      serviceStatus: status,
    });
  }

  /** Signals the deposit's workflow, starting it if it does not exist yet. */
  private async deliverToDeposit(target: string, route: DepositRoute): Promise<RampEventResult> {
    const outcome = await local.deliverToDeposit.executeWithOptions(
      { startToCloseTimeout: '1 minute', retry: ACTIVITY_RETRY, summary: `signal-with-start ${target}` },
      [this.depositDelivery(route)],
    );
    if (outcome === 'ENDED') return this.targetClosed(target);
    this.routed(`signalled ${target} (${this.serviceStatus ?? ''})`);
    return { ...this.base, outcome: 'ROUTED', target, ...this.extras() };
  }

  private depositDelivery(route: DepositRoute): DepositDelivery {
    const { key } = this.input;
    const { event } = this;
    switch (route.signal) {
      case 'deposit':
        return {
          depositId: route.record.id,
          ...(route.externalId ? { externalId: route.externalId } : {}),
          signal: 'deposit',
          event: { key, event, record: route.record },
        };
      case 'trade':
        return { depositId: route.depositId, signal: 'trade', event: { key, event, record: route.record } };
      case 'payment':
        return { depositId: route.depositId, signal: 'payment', event: { key, event, record: route.record } };
    }
  }

  /** Signals the customer's journey (or a payout); false when no such workflow is running. */
  private async signalTarget(target: string, route: SignalledRoute): Promise<boolean> {
    const handle = getExternalWorkflowHandle(target);
    const { key } = this.input;
    const { event } = this;
    try {
      switch (route.signal) {
        case 'customer':
          await handle.signal(customerEventSignal, { key, event, record: route.record });
          break;
        case 'virtualAccount':
          await handle.signal(virtualAccountEventSignal, { key, event, record: route.record });
          break;
        case 'depositAddress':
          await handle.signal(depositAddressEventSignal, { key, event, record: route.record });
          break;
        case 'payout':
          await handle.signal(payoutPaymentEventSignal, { key, event, record: route.record });
          break;
      }
      return true;
    } catch {
      // The only failure of a signal to another workflow is that no run of it is open.
      return false;
    }
  }

  /** Lets operators list a customer's events by the same attributes as its journey. */
  private indexFor(route: EventRoute): void {
    const externalId = 'externalId' in route ? route.externalId : undefined;
    const customerId =
      'customerId' in route ? route.customerId : route.signal === 'customer' ? route.record.id : undefined;
    this.customerIndex = [
      ...(externalId ? [{ key: RampExternalId, value: externalId }] : []),
      ...(customerId ? [{ key: RampCustomerId, value: customerId }] : []),
    ];
  }

  /**
   * Most events are routed at once: their stage stays EVENT_RECEIVED, read as EVENT_ROUTED once the
   * workflow has completed (client/visibility.ts), which saves a billable upsert per event. One that
   * was shown waiting says it is routed now.
   */
  private routed(details: string): void {
    if (workflowInfo().typedSearchAttributes.get(RampStage) === EVENT_STAGE.RECEIVED)
      setCurrentDetails(`**${EVENT_STAGE.ROUTED}**: ${details}`);
    else this.enterStage(EVENT_STAGE.ROUTED, details);
  }

  private targetClosed(target: string): RampEventResult {
    this.enterStage(EVENT_STAGE.TARGET_CLOSED, `${target} has finished; nothing left to move`);
    return { ...this.base, outcome: 'TARGET_CLOSED', target, ...this.extras() };
  }

  /** Ends the event with nothing left waiting: the service has no such record, or never confirmed the claim. */
  dismiss(reason: string, why: DismissReason = 'record-not-found'): RampEventResult {
    this.enterStage(EVENT_STAGE.DISMISSED, reason);
    countDismissed('rampEvent', why);
    log.info(
      why === 'record-not-found'
        ? 'ramp event dismissed: the service has no such record'
        : 'ramp event dismissed: the service never confirmed its claim',
      { ...this.base },
    );
    return { ...this.base, outcome: 'DISMISSED', reason, ...this.extras() };
  }

  /** Ends the event unrouted, for operators: RampStage = EVENT_UNROUTED, the reason in the details and the result. */
  park(pending: Pending): RampEventResult {
    this.enterStage(EVENT_STAGE.UNROUTED, `${pending.code}: ${pending.reason}`);
    log.warn('ramp event parked', { ...this.base, parkCode: pending.code, reason: pending.reason });
    return { ...this.base, outcome: 'PARKED', parkCode: pending.code, reason: pending.reason, ...this.extras() };
  }

  private enterStage(stage: string, details: string): void {
    indexChanged([{ key: RampStage, value: stage }, ...this.customerIndex]);
    setCurrentDetails(`**${stage}**: ${details}`);
  }

  private extras(): Partial<RampEventResult> {
    return {
      ...(this.serviceStatus !== undefined ? { serviceStatus: this.serviceStatus } : {}),
      ...(this.hintDisagreed?.length ? { hintDisagreed: this.hintDisagreed } : {}),
    };
  }
}
