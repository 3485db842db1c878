/** Partner events for store and pull API tests: catalogue-shaped, with customer data worth hiding. */
import { randomUUID } from 'node:crypto';
import type { temporal } from '@temporalio/proto';
import type { PartnerEvent, PartnerEventStream } from '../../partner-events/catalogue';

export const newEventId = () => `evt_${randomUUID().replaceAll('-', '')}`;

/** A KYC link no other test writes, to look for at rest. */
export const secretKycLink = () => `https://kyc.example.test/verify/${randomUUID()}`;

/** A customer's events 1..count, alternating kinds; the first carries `kycLink`, the second an account number. */
export function customerEvents(
  externalId: string,
  count: number,
  options: { kycLink?: string; accountNumber?: string; from?: number } = {},
): PartnerEvent[] {
  const from = options.from ?? 1;
  return Array.from({ length: count }, (_, index): PartnerEvent => {
    const sequence = from + index;
    const envelope = {
      id: newEventId(),
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)).toISOString(),
      sequence,
      externalId,
    };
    if (sequence === 1)
      return { ...envelope, type: 'journey.kyc_required', data: { kycLink: options.kycLink ?? secretKycLink() } };
    if (sequence === 2) {
      return {
        ...envelope,
        type: 'journey.accounts_ready',
        data: {
          virtualAccount: {
            id: 'va-1',
            currency: 'AUD',
            accountNumber: options.accountNumber ?? '123456789',
            bankName: 'Test Bank',
          },
        },
      };
    }
    return {
      ...envelope,
      type: 'deposit.received',
      data: { depositId: `dep-${sequence}`, kind: 'ONRAMP', amount: `${sequence}.00`, currency: 'AUD' },
    };
  });
}

export const customerStream = (externalId: string): PartnerEventStream => `customer/${externalId}`;

export function payoutEvent(reference: string): PartnerEvent {
  return {
    id: newEventId(),
    type: 'payout.settled',
    timestamp: new Date().toISOString(),
    sequence: 1,
    payoutReference: reference,
    data: { reference, paymentId: 'pay-1' },
  };
}

/**
 * How a run published its events, from its history: recordings by activity (since 1.4), recordings
 * by local activity (runs recorded before 1.4: their markers), and pushes.
 */
export function publishingIn(events: readonly temporal.api.history.v1.IHistoryEvent[]): {
  recordings: number;
  localRecordings: number;
  pushes: number;
} {
  const counted = { recordings: 0, localRecordings: 0, pushes: 0 };
  for (const event of events) {
    const marker = event.markerRecordedEventAttributes;
    if (
      marker?.markerName === 'core_local_activity' &&
      Buffer.from(marker.details?.data?.payloads?.[0]?.data ?? [])
        .toString()
        .includes('"activity_type":"recordPartnerEvents"')
    )
      counted.localRecordings += 1;
    const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (activity === 'recordPartnerEvents') counted.recordings += 1;
    if (activity === 'pushRecordedPartnerEvents') counted.pushes += 1;
  }
  return counted;
}
