/**
 * Event deliveries: one per event and subscribed name, delivered by the minute scheduler with the
 * interface's retry policy, and logged attempt by attempt for GET /sandbox/deliveries.
 *
 * - Only subscribed events are delivered, under the name the partner subscribed with (an older name
 *   such as `va.approved` is delivered as `va.approved`; a partner subscribed under both names gets
 *   both, as the DESIGN's de-duplication expects).
 * - The payload is the matching detail record as it was when the event happened (a snapshot), so a
 *   late retry of DEPOSIT_RECEIVED still says RECEIVED.
 * - The callback URL is read at each attempt: no URL registered is a failed attempt, retried like any
 *   other, so registering the URL late still gets the event through on a retry.
 * - Switches, to exercise receivers: `duplicate` sends every delivered event a second time;
 *   `outOfOrder` sends the deliveries due in one scheduler run newest first; `retrySpeedup` divides
 *   the policy's waits (a run of minutes meets retries a week apart). Per partner, switched while
 *   the sandbox runs (POST /sandbox/delivery-faults): a share of attempts lost on the way (the
 *   receiver never sees them; each is a failed attempt, retried on the policy, so a delivery whose
 *   every attempt is lost is lost for good), a share of events lost for good (every attempt the
 *   scheduler makes of an event that happens meanwhile is lost, so the policy gives up after its five
 *   and only a read of the service shows the fact), and deliveries held back (the first attempt of an
 *   event that happens meanwhile waits that long, so it lands ticks late, behind later ones).
 */
import type { Logger } from 'pino';
import { normaliseEventName, type EventName } from '../../ramp/events';
import type { VirtualClock } from '../clock';
import { newId } from '../identifiers';
import type { SandboxStore } from '../state/store';
import type { AttemptResult, HttpDeliverer } from './http-deliverer';
import { MAX_ATTEMPTS, tickAfter, tickAtOrAfter, waitAfterFailedAttempt } from './retry-policy';

/** How many customers' deliveries go out at once in one scheduler run. */
const DELIVERY_CONCURRENCY = 16;

export type AttemptTrigger = 'SCHEDULED' | 'RESEND' | 'DUPLICATE';

export interface DeliveryAttempt {
  /** 1-based count of scheduled attempts; resends and duplicates are numbered but not counted against the five. */
  number: number;
  trigger: AttemptTrigger;
  /** Virtual time of the attempt. */
  time: number;
  url: string | null;
  outcome: 'DELIVERED' | 'FAILED';
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

export interface DeliveryRecord {
  id: string;
  partnerId: string;
  /** The name it is delivered under (as subscribed). */
  event: string;
  payload: { id: string } & Record<string, unknown>;
  /** Whose event it is: one customer's events are delivered in the order they happened. */
  customerId: string;
  createTime: number;
  status: DeliveryStatus;
  scheduledAttempts: number;
  nextAttemptTime: number | null;
  attempts: DeliveryAttempt[];
  sequence: number;
  /** Every attempt the scheduler makes is lost (a lost-for-good fault was set when the event happened). */
  lostForGood: boolean;
}

export interface DeliveryOptions {
  tickSeconds: number;
  duplicate: boolean;
  outOfOrder: boolean;
  /** The retry policy's waits are divided by this (1: the interface's policy). */
  retrySpeedup: number;
  /** Draws in [0, 1) deciding which attempts are lost (below the lost share). */
  random: () => number;
}

/** A partner's delivery faults: none by default. */
export interface DeliveryFaults {
  /** The share of attempts lost on the way, 0 to 1. */
  lostShare: number;
  /** The share of events, among those that happen while it is set, whose every scheduled attempt is lost. */
  lostForGoodShare: number;
  /** How long the first attempt of an event that happens while it is set waits beyond its tick. */
  delaySeconds: number;
}

export const NO_DELIVERY_FAULTS: DeliveryFaults = { lostShare: 0, lostForGoodShare: 0, delaySeconds: 0 };

/** What a lost attempt logs: the receiver never saw it. */
export const LOST_ATTEMPT_ERROR = 'lost on the way (injected): the receiver never saw it';
/** What each attempt of an event lost for good logs. */
export const LOST_FOR_GOOD_ATTEMPT_ERROR = 'lost for good (injected): no attempt of this event reaches the receiver';

export class Deliveries {
  private readonly records = new Map<string, DeliveryRecord>();
  private readonly scheduledTicks = new Set<number>();
  private readonly faults = new Map<string, DeliveryFaults>();
  private nextSequence = 0;

  constructor(
    private readonly store: SandboxStore,
    private readonly clock: VirtualClock,
    private readonly deliverer: HttpDeliverer,
    private readonly options: DeliveryOptions,
    private readonly logger: Logger,
  ) {}

  /** Records that `event` happened to a partner's record; queues one delivery per matching subscription. */
  emit(
    partnerId: string,
    customerId: string,
    event: EventName,
    payload: { id: string } & Record<string, unknown>,
  ): void {
    const subscribed = this.store
      .partner(partnerId)
      .subscribedEvents.filter((name) => normaliseEventName(name) === event);
    const now = this.clock.now();
    const faults = this.faultsOf(partnerId);
    const dueAt = now + faults.delaySeconds * 1000;
    for (const name of subscribed) {
      const record: DeliveryRecord = {
        id: newId(),
        partnerId,
        customerId,
        event: name,
        payload: structuredClone(payload),
        createTime: now,
        status: 'PENDING',
        scheduledAttempts: 0,
        nextAttemptTime: dueAt,
        attempts: [],
        sequence: this.nextSequence++,
        // Drawn only while the fault is set, so the loss draws of a run without it stay what they were.
        lostForGood: faults.lostForGoodShare > 0 && this.options.random() < faults.lostForGoodShare,
      };
      this.records.set(record.id, record);
      this.scheduleRun(tickAfter(dueAt, this.tickMs()));
    }
  }

  /** Sets a partner's delivery faults (NO_DELIVERY_FAULTS lifts them); deliveries already queued keep their times. */
  setFaults(partnerId: string, faults: DeliveryFaults): void {
    if (faults.lostShare === 0 && faults.lostForGoodShare === 0 && faults.delaySeconds === 0)
      this.faults.delete(partnerId);
    else this.faults.set(partnerId, { ...faults });
  }

  faultsOf(partnerId: string): DeliveryFaults {
    return this.faults.get(partnerId) ?? NO_DELIVERY_FAULTS;
  }

  list(partnerId: string): DeliveryRecord[] {
    return [...this.records.values()].filter((record) => record.partnerId === partnerId);
  }

  find(partnerId: string, id: string): DeliveryRecord | undefined {
    const record = this.records.get(id);
    return record?.partnerId === partnerId ? record : undefined;
  }

  /**
   * Sends a delivery again now, through the same path as a scheduled attempt. It does not use up one
   * of the five scheduled attempts; a successful resend ends any pending retries.
   */
  async resend(record: DeliveryRecord): Promise<DeliveryAttempt> {
    const attempt = await this.attempt(record, 'RESEND', this.clock.now());
    if (attempt.outcome === 'DELIVERED') {
      record.status = 'DELIVERED';
      record.nextAttemptTime = null;
    }
    return attempt;
  }

  private tickMs(): number {
    return this.options.tickSeconds * 1000;
  }

  /** One scheduler run per tick time at most; it picks up everything due by then. */
  private scheduleRun(tickTime: number): void {
    if (this.scheduledTicks.has(tickTime)) return;
    this.scheduledTicks.add(tickTime);
    this.clock.schedule(tickTime, 'event delivery run', async () => {
      this.scheduledTicks.delete(tickTime);
      await this.run(tickTime);
    });
  }

  /**
   * Delivers everything due at `tickTime`. One customer's events go out one after another, in the
   * order they happened (newest first with the switch), so by default a receiver sees a deposit
   * approved before its trade is created; different customers' go out side by side, as a real
   * delivery service's workers would, so a busy minute does not take minutes to deliver and hold up
   * the autopilot behind it.
   */
  private async run(tickTime: number): Promise<void> {
    const due = [...this.records.values()]
      .filter(
        (record) =>
          record.status === 'PENDING' && record.nextAttemptTime !== null && record.nextAttemptTime <= tickTime,
      )
      .sort((a, b) => a.sequence - b.sequence);
    if (this.options.outOfOrder) due.reverse();
    const byCustomer = new Map<string, DeliveryRecord[]>();
    for (const record of due) {
      const key = `${record.partnerId}/${record.customerId}`;
      byCustomer.set(key, [...(byCustomer.get(key) ?? []), record]);
    }
    const queues = [...byCustomer.values()];
    const worker = async (): Promise<void> => {
      for (let queue = queues.shift(); queue !== undefined; queue = queues.shift()) {
        for (const record of queue) await this.deliverDue(record, tickTime);
      }
    };
    await Promise.all(Array.from({ length: Math.min(DELIVERY_CONCURRENCY, queues.length) }, worker));
  }

  private async deliverDue(record: DeliveryRecord, tickTime: number): Promise<void> {
    record.scheduledAttempts += 1;
    const attempt = await this.attempt(record, 'SCHEDULED', tickTime);
    if (attempt.outcome === 'DELIVERED') {
      record.status = 'DELIVERED';
      record.nextAttemptTime = null;
      if (this.options.duplicate) await this.attempt(record, 'DUPLICATE', tickTime);
      return;
    }
    const wait = waitAfterFailedAttempt(record.scheduledAttempts);
    if (wait === undefined || record.scheduledAttempts >= MAX_ATTEMPTS) {
      record.status = 'FAILED';
      record.nextAttemptTime = null;
      return;
    }
    record.nextAttemptTime = tickTime + (wait * 1000) / this.options.retrySpeedup;
    this.scheduleRun(tickAtOrAfter(record.nextAttemptTime, this.tickMs()));
  }

  private lost(partnerId: string): boolean {
    const { lostShare } = this.faultsOf(partnerId);
    return lostShare > 0 && this.options.random() < lostShare;
  }

  private async attempt(record: DeliveryRecord, trigger: AttemptTrigger, time: number): Promise<DeliveryAttempt> {
    const url = this.store.partner(record.partnerId).callbackUrl;
    const result: AttemptResult =
      url === null
        ? { delivered: false, httpStatus: null, error: 'no callback URL registered', durationMs: 0 }
        : record.lostForGood && trigger !== 'RESEND'
          ? { delivered: false, httpStatus: null, error: LOST_FOR_GOOD_ATTEMPT_ERROR, durationMs: 0 }
          : this.lost(record.partnerId)
            ? { delivered: false, httpStatus: null, error: LOST_ATTEMPT_ERROR, durationMs: 0 }
            : await this.deliverer.post(url, JSON.stringify({ event: record.event, payload: record.payload }));
    const attempt: DeliveryAttempt = {
      number: record.attempts.length + 1,
      trigger,
      time,
      url,
      outcome: result.delivered ? 'DELIVERED' : 'FAILED',
      httpStatus: result.httpStatus,
      error: result.error,
      durationMs: result.durationMs,
    };
    record.attempts.push(attempt);
    this.logger.info(
      {
        delivery: record.id,
        event: record.event,
        trigger,
        outcome: attempt.outcome,
        httpStatus: attempt.httpStatus,
        latencyMs: attempt.durationMs,
      },
      'event delivery attempt',
    );
    return attempt;
  }
}
