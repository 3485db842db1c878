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
 * Within budget (patch `ramp-events-within-budget`): the reads run on the service task queue at the
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
import { ACTIVITY_RETRY } from '../common/activity-options';
import { workflowNow } from '../common/clock';
import { hintDisagreements, serviceConfirms } from './claims';
import { depositWorkflowId, journeyWorkflowId, payoutWorkflowId } from '../common/ids';
import { indexChanged, type IndexEntry } from '../common/indexing';
import { customerEventSignal, depositAddressEventSignal, virtualAccountEventSignal } from '../common/messages';
import { payoutPaymentEventSignal } from '../payout/messages';
import {
  DEFAULT_RAMP_EVENT_TIMINGS,
  EVENT_STAGE,
  type EventRoute,
  type ParkCode,
  type RampEventInput,
  type RampEventResult,
} from './types';
import { RampCustomerId, RampExternalId, RampStage } from '../../observability/search-attributes';
import { countDismissed, type DismissReason } from '../common/trust-metrics';
import { ABSENT_RECORDS_DISMISSED, RAMP_EVENTS_WITHIN_BUDGET, takesPatch } from '../common/patches';
import { PRIORITY, serviceActivities } from '../common/service-activities';

// Reads of the service retry for about an hour (the service may be briefly down); a refusal a retry
// cannot fix (bad credentials) fails at once and parks the event.
const act = proxyActivities<EventRoutingActivities>({ startToCloseTimeout: '1 minute', retry: ACTIVITY_RETRY });
// The re-read runs as a local activity, inside the workflow task the start produced, so the signal
// leaves in that task's completion: no activity task to schedule, poll and complete, which is two
// round trips to the server on the path from webhook to journey (event-to-wake latency). Its retries
// back off inside the worker, then on server timers once a pause exceeds a minute.
const local = proxyLocalActivities<EventRoutingActivities & DepositDeliveryActivities>({
  startToCloseTimeout: '1 minute',
  retry: ACTIVITY_RETRY,
});
// Within budget the re-read waits its turn on the service task queue at the lowest priority instead:
// anyone holding the webhook token can start these workflows, and local activities skip the queue's
// priorities (signups and payouts first) and its partner-wide dispatch rate.
const queued = serviceActivities<EventRoutingActivities>(
  { startToCloseTimeout: '1 minute', retry: ACTIVITY_RETRY },
  () => PRIORITY.LOW,
);

interface Pending {
  code: ParkCode;
  reason: string;
}

export async function rampEvent(input: RampEventInput): Promise<RampEventResult> {
  const timings = { ...DEFAULT_RAMP_EVENT_TIMINGS, ...input.timings };
  const base = { event: input.event, payloadId: input.payloadId };
  let hintDisagreed: string[] | undefined;
  let serviceStatus: string | undefined;
  /** The customer the event is about, once known: indexed with the next stage shown (an event that waits or parks). */
  let customerIndex: IndexEntry[] = [];

  function show(stage: string, details: string): void {
    indexChanged([{ key: RampStage, value: stage }, ...customerIndex]);
    setCurrentDetails(`**${stage}**: ${details}`);
  }

  /**
   * Most events are routed at once: their stage stays EVENT_RECEIVED, read as EVENT_ROUTED once the
   * workflow has completed (client/visibility.ts), which saves a billable upsert per event. One that
   * was shown waiting says it is routed now.
   */
  function routed(details: string): void {
    if (workflowInfo().typedSearchAttributes.get(RampStage) === EVENT_STAGE.RECEIVED)
      setCurrentDetails(`**${EVENT_STAGE.ROUTED}**: ${details}`);
    else show(EVENT_STAGE.ROUTED, details);
  }

  function dismiss(reason: string, why: DismissReason = 'record-not-found'): RampEventResult {
    show(EVENT_STAGE.DISMISSED, reason);
    countDismissed('rampEvent', why);
    log.info(
      why === 'record-not-found'
        ? 'ramp event dismissed: the service has no such record'
        : 'ramp event dismissed: the service never confirmed its claim',
      { ...base },
    );
    return { ...base, outcome: 'DISMISSED', reason, ...extras() };
  }

  function park(pending: Pending): RampEventResult {
    show(EVENT_STAGE.UNROUTED, `${pending.code}: ${pending.reason}`);
    log.warn('ramp event parked', { ...base, parkCode: pending.code, reason: pending.reason });
    return { ...base, outcome: 'PARKED', parkCode: pending.code, reason: pending.reason, ...extras() };
  }

  function extras(): Partial<RampEventResult> {
    return {
      ...(serviceStatus !== undefined ? { serviceStatus } : {}),
      ...(hintDisagreed?.length ? { hintDisagreed } : {}),
    };
  }

  if (input.resource === undefined) {
    return park({
      code: 'UNKNOWN_EVENT',
      reason: `"${input.event}" is not an event name rampflow knows; nothing was routed`,
    });
  }
  const event = input.event as EventName;
  const resource = input.resource;

  const deadline = workflowNow() + timings.targetWaitSeconds * 1000;
  let pauseSeconds = timings.firstRetrySeconds;
  let indexed = false;
  let lookedAgainForRecord = false;
  const withinBudget = takesPatch(RAMP_EVENTS_WITHIN_BUDGET);
  const reads = withinBudget ? queued : local;

  for (;;) {
    let pending: Pending;
    let resolution;
    try {
      resolution = await reads.resolveRampEvent.executeWithOptions(
        {
          startToCloseTimeout: '1 minute',
          retry: ACTIVITY_RETRY,
          summary: `re-read ${resource} ${input.payloadId} from the service`,
          // At the lowest priority a read may wait behind a backlog that never clears: it waits no
          // longer than the event would wait for its target, then the event is dismissed.
          ...(withinBudget ? { scheduleToCloseTimeout: Math.max(deadline - workflowNow(), 1000) } : {}),
        },
        [{ resource, payloadId: input.payloadId }],
      );
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      if (withinBudget && error.cause instanceof TimeoutFailure) {
        return dismiss(
          `${resource} ${input.payloadId} could not be read from the service within ${timings.targetWaitSeconds} s`,
          'not-read-in-time',
        );
      }
      const cause =
        error.cause instanceof ApplicationFailure
          ? `${error.cause.type ?? 'failure'}: ${error.cause.message}`
          : error.message;
      return park({
        code: 'SERVICE_ERROR',
        reason: `reading ${resource} ${input.payloadId} from the service failed (${cause})`,
      });
    }

    if (resolution.kind === 'unroutable') return park({ code: resolution.code, reason: resolution.reason });
    if (resolution.kind === 'record-not-found') {
      pending = { code: 'RECORD_NOT_FOUND', reason: `the service has no ${resource} ${input.payloadId}` };
      // A delivery about a record the service does not have parks nothing (workflows/common/trust.ts): after
      // one more look, a grace period later, it is dismissed and counted.
      if (takesPatch(ABSENT_RECORDS_DISMISSED)) {
        if (lookedAgainForRecord) return dismiss(pending.reason);
        lookedAgainForRecord = true;
        show(EVENT_STAGE.WAITING, `${pending.reason}; looking once more in ${timings.notFoundGraceSeconds} s`);
        await sleep(timings.notFoundGraceSeconds * 1000, { summary: pending.reason });
        continue;
      }
    } else {
      const { route, status } = resolution;
      serviceStatus = status;
      if (!indexed) {
        indexed = true;
        indexFor(route);
        hintDisagreed = hintDisagreements(input.hint, status, route);
        if (hintDisagreed.length > 0) {
          // The service's record wins. Payloads are snapshots, so a late delivery of an event the
          // service has since moved past is routine (info); a claim the service does not back is
          // worth an operator's look (warn).
          const level = serviceConfirms(event, status) ? 'info' : 'warn';
          log[level]("webhook payload disagrees with the service; using the service's record", {
            ...base,
            fields: hintDisagreed,
            hintStatus: input.hint.status,
            serviceStatus: status,
          });
        }
      }
      const target = targetOf(route);
      if (!serviceConfirms(event, status)) {
        pending = {
          code: 'DISPUTED',
          reason: `the service says ${resource} ${input.payloadId} is ${status}, which does not confirm ${event}`,
        };
      } else if (route.signal === 'deposit' || route.signal === 'trade' || route.signal === 'payment') {
        return await deliverToDeposit(target, route);
      } else if (await signalTarget(target, route)) {
        routed(`signalled ${target} (${status})`);
        return { ...base, outcome: 'ROUTED', target, ...extras() };
      } else {
        const targetState = await act.describeTargetWorkflow.executeWithOptions(
          { startToCloseTimeout: '30 seconds', retry: ACTIVITY_RETRY, summary: `is ${target} running?` },
          [target],
        );
        if (targetState === 'CLOSED') {
          show(EVENT_STAGE.TARGET_CLOSED, `${target} has finished; nothing left to move`);
          return { ...base, outcome: 'TARGET_CLOSED', target, ...extras() };
        }
        // RUNNING here means a journey was between runs (continue-as-new): simply try again.
        pending = { code: 'NO_TARGET', reason: `no workflow ${target} is running (yet)` };
      }
    }

    const left = deadline - workflowNow();
    if (left <= 0)
      return withinBudget && pending.code === 'DISPUTED'
        ? dismiss(pending.reason, 'claim-not-confirmed')
        : park(pending);
    show(EVENT_STAGE.WAITING, `${pending.reason}; looking again for up to ${Math.ceil(left / 1000)} s`);
    await sleep(Math.min(pauseSeconds * 1000, left), { summary: pending.reason });
    pauseSeconds = Math.min(pauseSeconds * 2, timings.maxRetrySeconds);
  }

  function targetOf(route: EventRoute): string {
    switch (route.signal) {
      case 'trade':
      case 'payment':
        return depositWorkflowId(route.depositId);
      case 'deposit':
        return depositWorkflowId(route.record.id);
      case 'payout':
        return payoutWorkflowId(route.reference);
      default:
        return journeyWorkflowId(route.externalId);
    }
  }

  /** Signals the deposit's workflow, starting it if it does not exist yet. */
  async function deliverToDeposit(
    target: string,
    route: Extract<EventRoute, { signal: 'deposit' | 'trade' | 'payment' }>,
  ): Promise<RampEventResult> {
    const outcome = await local.deliverToDeposit.executeWithOptions(
      { startToCloseTimeout: '1 minute', retry: ACTIVITY_RETRY, summary: `signal-with-start ${target}` },
      [depositDelivery(route)],
    );
    if (outcome === 'ENDED') {
      show(EVENT_STAGE.TARGET_CLOSED, `${target} has finished; nothing left to move`);
      return { ...base, outcome: 'TARGET_CLOSED', target, ...extras() };
    }
    routed(`signalled ${target} (${serviceStatus ?? ''})`);
    return { ...base, outcome: 'ROUTED', target, ...extras() };
  }

  function depositDelivery(route: Extract<EventRoute, { signal: 'deposit' | 'trade' | 'payment' }>): DepositDelivery {
    const key = input.key;
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

  /** Lets operators list a customer's events by the same attributes as its journey. */
  function indexFor(route: EventRoute): void {
    const externalId = 'externalId' in route ? route.externalId : undefined;
    const customerId =
      'customerId' in route ? route.customerId : route.signal === 'customer' ? route.record.id : undefined;
    customerIndex = [
      ...(externalId ? [{ key: RampExternalId, value: externalId }] : []),
      ...(customerId ? [{ key: RampCustomerId, value: customerId }] : []),
    ];
  }

  /** Signals the customer's journey (or a payout); false when no such workflow is running. */
  async function signalTarget(
    target: string,
    route: Extract<EventRoute, { signal: 'customer' | 'virtualAccount' | 'depositAddress' | 'payout' }>,
  ): Promise<boolean> {
    const handle = getExternalWorkflowHandle(target);
    const key = input.key;
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
}
