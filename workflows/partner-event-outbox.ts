/**
 * A workflow's partner events on their way out (partner-events/catalogue.ts): each is numbered within
 * its stream (a customer, or a payout), given an id that replays the same, and published by an
 * activity that records it in the event store and delivers it to the partner's endpoints
 * (activities/partner-event-activities.ts). Publishing runs beside the workflow's business: a slow or
 * failing store never holds a journey up, and events wait here, in order, until it answers.
 *
 * Events report facts: callers emit only after the service's own record established them (DESIGN,
 * "Trust"). Emitting is behind the patch `partner-events`, so histories recorded before it replay
 * without the activity. Recording by local activity is behind `partner-events-recorded-locally`:
 * runs recorded before it replay with the one activity that recorded and pushed.
 */
import { condition, proxyActivities, proxyLocalActivities, uuid4 } from '@temporalio/workflow';
import type { PartnerEventActivities, PublishRequest } from '../activities/partner-event-activities';
import type { PartnerEvent, PartnerEventData, PartnerEventStream, PartnerEventType } from '../partner-events/catalogue';
import { isoNow } from './clock';
import { PARTNER_EVENTS, PARTNER_EVENTS_RECORDED_LOCALLY, takesPatch } from './patches';

/** Events per publish: a deposit storm's events go out in batches of bounded payload size. */
const PUBLISH_BATCH = 50;

/**
 * Publishing must get through: attempts until the store answers (no maximumAttempts), the backoff
 * capped at five minutes. Delivery to a partner endpoint that is down does not fail it: the activity
 * hands such deliveries to the stream's delivery workflow, which retries for days.
 */
const UNTIL_THE_STORE_ANSWERS = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' } as const;

const publisher = proxyActivities<PartnerEventActivities>({
  startToCloseTimeout: '2 minutes',
  retry: UNTIL_THE_STORE_ANSWERS,
  summary: 'publish partner events',
});

/**
 * Recording is an append in the worker's own process: as a local activity it costs the server no
 * task of its own (its result is a marker in the workflow task that asked for it). An attempt that
 * fails is retried in place; past a minute of retries the SDK waits on a timer between attempts.
 */
const recorder = proxyLocalActivities<PartnerEventActivities>({
  startToCloseTimeout: '30 seconds',
  retry: UNTIL_THE_STORE_ANSWERS,
  summary: 'record partner events',
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
  /**
   * Whether the last batch found an endpoint to push to, learned from the store's answer: then the
   * next batch is recorded and pushed by one activity, as cheap as the push alone. Unknown at the
   * start of a run, and after a batch nobody was enabled for, so those are recorded locally first.
   */
  private pushing = false;
  readonly stream: PartnerEventStream;

  constructor(
    private readonly subject: EventSubject,
    carried?: CarriedOutbox,
  ) {
    this.sequence = carried?.sequence ?? 0;
    this.sentOnce = new Set(carried?.sentOnce ?? []);
    this.stream = 'externalId' in subject ? `customer/${subject.externalId}` : `payout/${subject.payoutReference}`;
  }

  /** Emits an event; publishing starts at once if nothing is being published. */
  emit<T extends PartnerEventType>(type: T, data: PartnerEventData<T>): void {
    if (!takesPatch(PARTNER_EVENTS)) return;
    this.sequence += 1;
    const event = { id: `evt_${uuid4().replaceAll('-', '')}`, type, timestamp: isoNow(), sequence: this.sequence, ...this.subject, data } as PartnerEvent;
    this.pending.push(event);
    void this.publish();
  }

  /** Emits an event that happens once in a stream's life (approval, becoming active): a resumed stage does not repeat it. */
  emitOnce<T extends PartnerEventType>(type: T, data: PartnerEventData<T>): void {
    if (this.sentOnce.has(type)) return;
    this.sentOnce.add(type);
    this.emit(type, data);
  }

  /** Every emitted event recorded: the workflow waits for this before it continues as new or ends. */
  async drained(): Promise<void> {
    await condition(() => this.pending.length === 0 && !this.publishing);
  }

  carry(): CarriedOutbox {
    return { sequence: this.sequence, sentOnce: [...this.sentOnce] };
  }

  private async publish(): Promise<void> {
    if (this.publishing) return;
    this.publishing = true;
    try {
      while (this.pending.length > 0) {
        const batch = { stream: this.stream, events: this.pending.slice(0, PUBLISH_BATCH) };
        if (!takesPatch(PARTNER_EVENTS_RECORDED_LOCALLY)) await publisher.publishPartnerEvents(batch);
        else await this.recordThenPush(batch);
        this.pending.splice(0, batch.events.length);
      }
    } finally {
      this.publishing = false;
    }
  }

  /**
   * Records the batch before any push, so the pull API and a later delivery workflow have it, and
   * pushes it only when some endpoint is enabled: a partner who only pulls pays a local activity per
   * batch, one who is pushed to pays one activity per batch (and one local activity per run).
   */
  private async recordThenPush(batch: PublishRequest): Promise<void> {
    if (this.pushing) {
      const { endpoints } = await publisher.publishPartnerEvents(batch);
      this.pushing = (endpoints ?? 0) > 0;
      return;
    }
    const { endpoints } = await recorder.recordPartnerEvents(batch);
    if (endpoints === 0) return;
    await publisher.pushPartnerEvents(batch);
    this.pushing = true;
  }
}
