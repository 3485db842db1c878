/**
 * A workflow's partner events on their way out (partner-events/catalogue.ts): each is numbered within
 * its stream (a customer, or a payout), given an id that replays the same, and published by an
 * activity that records it in the event store and delivers it to the partner's endpoints
 * (activities/partner-event-activities.ts). Publishing runs beside the workflow's business: a slow or
 * failing store never holds a journey up, and events wait here, in order, until it answers.
 *
 * Events report facts: callers emit only after the service's own record established them (DESIGN,
 * "Trust").
 *
 * - A stream outlives its runs: a journey signed up again for a known externalId, a payout reference
 *   used again, a reset. A new run numbers from where it left off (from 1 when new), and when the
 *   store already holds those sequences under other events, the recording answers with the stream's
 *   last sequence and the outbox numbers its unrecorded events on after it: the partner sees one
 *   gap-free sequence per stream, whatever the runs. The new run
 *   also pushes the earlier run's events from where it itself stood: a run reset or terminated between
 *   recording and pushing left them undelivered (the partner dedups the rest by webhook-id).
 * - A fact (a stage reached once, a deposit's progress, a payout's end) has an id made from what it
 *   is (FACT IDS): a run reset to before it emits it again under that id, the store holds it under
 *   an earlier sequence, and the outbox drops it, so the partner hears each fact once. What may happen
 *   again (a park, a resume) gets a new id each time.
 * - Recording and pushing are apart: every batch is recorded by an activity, and recorded events
 *   are pushed, in order, by one bounded activity at a time. The workflow's end or continue-as-new
 *   waits only for recording; a push under way is cancelled (it stops sending at once) and whatever
 *   was not pushed is handed to the stream's delivery workflow, which owns retries.
 * - A sequence conflict that numbering on cannot heal parks the stream's publishing with a named
 *   reason (PartnerEventSequenceConflict): its unrecorded events are dropped and logged by count, and
 *   the workflow goes on.
 */
import {
  ActivityCancellationType,
  ActivityFailure,
  CancellationScope,
  condition,
  log,
  metricMeter,
  proxyActivities,
  proxyLocalActivities,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { METRICS } from '../../observability/metric-catalogue';
import type { PartnerEventActivities, PushRange, RecordOutcome } from '../../activities/partner-event-activities';
import { type EndpointProgress, PARTNER_EVENT_SEQUENCE_CONFLICT } from './messages';
import type {
  PartnerEvent,
  PartnerEventData,
  PartnerEventStream,
  PartnerEventType,
} from '../../partner-events/catalogue';
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { isoNow } from '../common/timings';
import { PARTNER_EVENTS_RECORDED_BY_ACTIVITY, takesPatch } from '../common/patches';

/** Events per publish: a deposit storm's events go out in batches of bounded payload size. */
const PUBLISH_BATCH = 50;

/**
 * Publishing must get through: attempts until the store answers (no maximumAttempts), the backoff
 * capped at five minutes. Delivery to a partner endpoint that is down does not fail it: the activity
 * hands such deliveries to the stream's delivery workflow, which retries for days.
 */
const UNTIL_THE_STORE_ANSWERS = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '5 minutes',
};

/** Numbering on after a stream's last sequence heals a conflict at once; again and again means another writer. */
const MAX_NUMBERINGS_PER_BATCH = 3;

/**
 * Recording is an append to the store, by an activity on the workflow's own task queue (since 1.4,
 * PARTNER_EVENTS_RECORDED_BY_ACTIVITY). Retried until the store answers.
 */
const recorder = proxyActivities<PartnerEventActivities>({
  startToCloseTimeout: '30 seconds',
  retry: UNTIL_THE_STORE_ANSWERS,
  summary: 'record partner events',
});

/**
 * How runs recorded before 1.4 record, and replay: by local activity (no task of its own on the
 * server; its result is a marker in the workflow task that asked for it). Replaced because the SDK's
 * core can hand a local activity's result to the workflow a task later than its marker, behind an
 * update, which a replay then applies in the other order (patches.ts, PARTNER_EVENTS_RECORDED_BY_ACTIVITY).
 */
const recorderBefore1_4 = proxyLocalActivities<PartnerEventActivities>({
  startToCloseTimeout: '30 seconds',
  retry: UNTIL_THE_STORE_ANSWERS,
  summary: 'record partner events',
});

/**
 * The push of recorded events: one attempt delivers for at most half its two minutes and hands what is
 * left to the delivery workflow (activities/partner-event-activities.ts), so a slow endpoint costs
 * the journey nothing and an attempt never sends beside its retry. It heartbeats every second: a
 * cancellation (the workflow handing over) reaches it within the heartbeat throttle, and the workflow
 * waits for it to stop sending (WAIT_CANCELLATION_COMPLETED), at most the heartbeat timeout when the
 * worker running it is gone.
 */
const pusher = proxyActivities<PartnerEventActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: UNTIL_THE_STORE_ANSWERS,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  summary: 'push partner events',
});

/**
 * Handing what was not pushed to the delivery workflow, when the workflow ends or continues as new:
 * retried for at most ten minutes (it is a signal-with-start on the workflow's own server), then the
 * workflow goes on without it and the events stay in the store for the pull API.
 */
const handOver = proxyActivities<PartnerEventActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '10 minutes',
  retry: UNTIL_THE_STORE_ANSWERS,
  summary: 'hand partner events to their delivery workflow',
});

/** Who the events are about: a customer (by the partner's externalId) or a payout (by its reference). */
export type EventSubject = { externalId: string } | { payoutReference: string };

/** Carried through continue-as-new: where numbering goes on, and which once-only events were sent. */
export interface CarriedOutbox {
  sequence: number;
  sentOnce: PartnerEventType[];
}

export class PartnerEventOutbox {
  private sequence: number;
  private readonly sentOnce: Set<PartnerEventType>;
  private readonly pending: PartnerEvent[] = [];
  private publishing = false;
  /** The last sequence recorded, and the last pushed or handed on. */
  private recordedThrough: number;
  private pushedThrough: number;
  private pushing?: CancellationScope;
  private handingOver = false;
  /** Where a push cancelled by the hand-over left each endpoint. */
  private stoppedAt?: EndpointProgress;
  /** Why publishing stopped for good (a named failure type), if it did. */
  private parkedBecause?: string;
  readonly stream: PartnerEventStream;

  constructor(
    private readonly subject: EventSubject,
    carried?: CarriedOutbox,
  ) {
    this.sequence = carried?.sequence ?? 0;
    // A run continues as new only once everything is recorded and the rest handed on.
    this.recordedThrough = this.sequence;
    this.pushedThrough = this.sequence;
    this.sentOnce = new Set(carried?.sentOnce ?? []);
    this.stream = 'externalId' in subject ? `customer/${subject.externalId}` : `payout/${subject.payoutReference}`;
  }

  /**
   * Emits an event that may happen again (a park, a resume): each time a new one. Publishing starts at
   * once if nothing is being published.
   */
  emit<T extends PartnerEventType>(type: T, data: PartnerEventData<T>): void {
    this.push(type, data, undefined);
  }

  /** Emits an event that happens once in a stream's life (approval, becoming active): a resumed stage does not repeat it. */
  emitOnce<T extends PartnerEventType>(type: T, data: PartnerEventData<T>): void {
    if (this.sentOnce.has(type)) return;
    this.sentOnce.add(type);
    this.push(type, data, '');
  }

  /**
   * Emits a fact about one thing (`about`: a deposit's id; '' for the stream's own subject): a run reset
   * to before it emits it again under the same id, and the store, which holds it already, keeps the
   * partner from hearing it twice (FACT IDS below).
   */
  emitFact<T extends PartnerEventType>(type: T, data: PartnerEventData<T>, about: string): void {
    this.push(type, data, about);
  }

  private push<T extends PartnerEventType>(type: T, data: PartnerEventData<T>, fact: string | undefined): void {
    // Parked (a conflict only seen by runs that never recorded one): nothing more is held for it.
    if (this.parkedBecause !== undefined) return;
    // Drawn for every event, a fact's too, so the workflow's random draws stay what a replay of a run
    // recorded before fact ids expects.
    const drawn = `evt_${uuid4().replaceAll('-', '')}`;
    this.sequence += 1;
    const event = {
      id: fact === undefined ? drawn : this.factId(type, fact),
      type,
      timestamp: isoNow(),
      sequence: this.sequence,
      ...this.subject,
      data,
    } as PartnerEvent;
    this.pending.push(event);
    void this.publish();
  }

  /**
   * FACT IDS. A fact's id is a digest of the stream, the workflow's first run (kept through
   * continue-as-new and resets; a customer who signs up again after the first journey was removed
   * starts a new one, whose facts are new), the type and what it is about. A reset makes a run do
   * again what it did since its start (client/workflow-reset.ts), signals and updates included, so
   * it emits those facts again: with the same ids, the store finds them held and the outbox drops
   * them (recordInTurn). Same format as a drawn id: `evt_` and 32 hex digits.
   */
  private factId(type: PartnerEventType, about: string): string {
    const key = [this.stream, workflowInfo().firstExecutionRunId, type, about].join('\n');
    return `evt_${bytesToHex(sha256(utf8ToBytes(key))).slice(0, 32)}`;
  }

  /**
   * Every emitted event recorded, and what is not pushed yet handed to the stream's delivery workflow: the workflow waits for this before it continues as new
   * or ends. Never for a push: an endpoint's speed does not hold a workflow up.
   */
  async drained(): Promise<void> {
    await condition(() => this.pending.length === 0 && !this.publishing);
    await this.handOverPushes();
  }

  /** Why this stream's publishing stopped for good (PartnerEventSequenceConflict), if it did. */
  get parked(): string | undefined {
    return this.parkedBecause;
  }

  carry(): CarriedOutbox {
    return { sequence: this.sequence, sentOnce: [...this.sentOnce] };
  }

  private async publish(): Promise<void> {
    if (this.publishing || this.parkedBecause !== undefined) return;
    this.publishing = true;
    try {
      await this.recordInTurn();
    } finally {
      this.publishing = false;
    }
  }

  /**
   * Records batches in order, one activity at a time; each recorded batch is pushed (by one push at a time,
   * which takes everything recorded since the last). A batch whose sequences the store holds under
   * other events (an earlier run of the stream) is numbered on after the store's last sequence.
   */
  private async recordInTurn(): Promise<void> {
    let numberings = 0;
    while (this.pending.length > 0) {
      const events = this.pending.slice(0, PUBLISH_BATCH);
      const answer = await this.record(events);
      if (answer.alreadyHeld !== undefined && answer.heldThrough !== undefined) {
        // Facts an earlier run of this stream published (a reset): dropped, and the rest numbered on.
        const held = new Set(answer.alreadyHeld);
        const unheld = this.pending.filter((event) => !held.has(event.id));
        this.pending.splice(0, this.pending.length, ...unheld);
        this.numberOnAfter(answer.heldThrough);
        continue;
      }
      if (answer.heldThrough !== undefined) {
        numberings += 1;
        if (numberings > MAX_NUMBERINGS_PER_BATCH) return this.park(PARTNER_EVENT_SEQUENCE_CONFLICT);
        this.numberOnAfter(answer.heldThrough);
        continue;
      }
      numberings = 0;
      this.pending.splice(0, events.length);
      this.recordedThrough = events.at(-1)!.sequence;
      if (answer.endpoints > 0) void this.pushInTurn();
      else if (this.pushing === undefined) this.pushedThrough = this.recordedThrough;
    }
  }

  /** One batch into the store: by activity, or by local activity in a run recorded before 1.4. */
  private record(events: PartnerEvent[]): Promise<RecordOutcome> {
    const request = { stream: this.stream, events };
    return takesPatch(PARTNER_EVENTS_RECORDED_BY_ACTIVITY)
      ? recorder.recordPartnerEvents(request)
      : recorderBefore1_4.recordPartnerEvents(request);
  }

  /** The store's stream ends at `heldThrough`: the unrecorded events take the sequences after it, in order. */
  private numberOnAfter(heldThrough: number): void {
    for (const [index, event] of this.pending.entries())
      this.pending[index] = { ...event, sequence: heldThrough + 1 + index };
    this.sequence = heldThrough + this.pending.length;
    this.recordedThrough = Math.max(this.recordedThrough, heldThrough);
    // This run's pushes take the earlier run's events too (pushedThrough stays): that run may have
    // been reset or terminated between recording them and pushing them, and nothing else would deliver
    // them. Those it did deliver go again under the same webhook-id, which the partner's verifier
    // treats as a retry.
  }

  /** Pushes what is recorded and not yet pushed, one bounded activity at a time, until handed over. */
  private async pushInTurn(): Promise<void> {
    if (this.pushing !== undefined) return;
    const scope = new CancellationScope();
    this.pushing = scope;
    try {
      while (this.pushedThrough < this.recordedThrough && !this.handingOver) {
        const range: PushRange = {
          stream: this.stream,
          afterSequence: this.pushedThrough,
          throughSequence: this.recordedThrough,
        };
        const { stoppedAt } = await scope.run(() => pusher.pushRecordedPartnerEvents(range));
        if (stoppedAt) {
          this.stoppedAt = stoppedAt;
          return;
        }
        this.pushedThrough = Math.max(this.pushedThrough, range.throughSequence);
      }
    } catch (error) {
      // Retried until it answers: only the hand-over's cancellation ends a push early.
      if (!this.handingOver) throw error;
    } finally {
      this.pushing = undefined;
    }
  }

  /**
   * Stops the push under way, waits until it has (it answers where each endpoint stands: it starts no
   * delivery once cancelled, and the one under way ends within the endpoint timeout), and hands the
   * rest to the delivery workflow from there.
   */
  private async handOverPushes(): Promise<void> {
    if (this.pushedThrough >= this.recordedThrough) return;
    this.handingOver = true;
    this.pushing?.cancel();
    await condition(() => this.pushing === undefined);
    if (this.pushedThrough >= this.recordedThrough) return;
    const range: PushRange = {
      stream: this.stream,
      afterSequence: this.pushedThrough,
      throughSequence: this.recordedThrough,
    };
    try {
      await handOver.handOffPartnerEvents({ ...range, ...(this.stoppedAt ? { stoppedAt: this.stoppedAt } : {}) });
      this.pushedThrough = range.throughSequence;
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      log.warn('partner events not handed to their delivery workflow: they stay in the store for the pull API', {
        after: range.afterSequence,
        through: range.throughSequence,
      });
      countStopped('handoff-failed');
    }
  }

  /** Publishing stops for good: unrecorded events are dropped (by count in the log), and nothing waits on them. */
  private park(reason: string): void {
    this.parkedBecause = reason;
    log.warn('partner events parked: not recorded', {
      reason,
      dropped: this.pending.length,
      fromSequence: this.pending[0]?.sequence,
    });
    countStopped('sequence-conflict');
    // The dropped events were the last numbered: a later run numbers on from the last recorded one.
    if (this.pending.length > 0) this.sequence = this.pending[0]!.sequence - 1;
    this.pending.length = 0;
  }
}

/**
 * Counted through the workflow metric meter (muted while a history replays, no commands), so the
 * stop reaches a person (RampflowPartnerEventsStopped) and not only a log line.
 */
function countStopped(reason: 'sequence-conflict' | 'handoff-failed'): void {
  metricMeter
    .createCounter(METRICS.partnerEventsStopped.name, '1', METRICS.partnerEventsStopped.help)
    .add(1, { workflow_type: workflowInfo().workflowType, reason });
}
