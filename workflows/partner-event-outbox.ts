/**
 * A workflow's partner events on their way out (partner-events/catalogue.ts): each is numbered within
 * its stream (a customer, or a payout), given an id that replays the same, and published by an
 * activity that records it in the event store and delivers it to the partner's endpoints
 * (activities/partner-event-activities.ts). Publishing runs beside the workflow's business: a slow or
 * failing store never holds a journey up, and events wait here, in order, until it answers.
 *
 * Events report facts: callers emit only after the service's own record established them (DESIGN,
 * "Trust"). Emitting is behind the patch `partner-events`, so histories recorded before it replay
 * without the activity.
 */
import { condition, patched, proxyActivities, uuid4 } from '@temporalio/workflow';
import type { PartnerEventActivities } from '../activities/partner-event-activities';
import type { PartnerEvent, PartnerEventData, PartnerEventStream, PartnerEventType } from '../partner-events/catalogue';
import { isoNow } from './clock';

export const PARTNER_EVENTS = 'partner-events';

/** Events per publish: a deposit storm's events go out in batches of bounded payload size. */
const PUBLISH_BATCH = 50;

/**
 * Publishing must get through: attempts until the store answers (no maximumAttempts), the backoff
 * capped at five minutes. Delivery to a partner endpoint that is down does not fail it: the activity
 * hands such deliveries to the stream's delivery workflow, which retries for days.
 */
const publisher = proxyActivities<PartnerEventActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
  summary: 'record and deliver partner events',
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
    if (!patched(PARTNER_EVENTS)) return;
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
        const batch = this.pending.slice(0, PUBLISH_BATCH);
        await publisher.publishPartnerEvents({ stream: this.stream, events: batch });
        this.pending.splice(0, batch.length);
      }
    } finally {
      this.publishing = false;
    }
  }
}
