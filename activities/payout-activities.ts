/**
 * The payout's activities. The service has no idempotency key, so the partner's reference is the
 * payout's: every create looks the payment up by that reference first, and an outcome-unknown
 * create is retried as that look-up once the request has settled (creates.ts), never resent blind.
 */
import type { RampClient } from '../ramp';
import type { PayoutInput } from '../workflows/payout-messages';
import type { PaymentRecord } from '../workflows/records';
import { asCreate } from './creates';
import { DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS, type FailureOptions } from './failures';
import { paymentRecord } from './records';

export type PayoutOrder = Omit<PayoutInput, 'timings'>;

export function createPayoutActivities(ramp: RampClient, failureOptions: FailureOptions = { outcomeUnknownRetryDelayMs: DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS }) {
  async function findByReference(reference: string) {
    for await (const payment of ramp.payments.iterate({ reference, pageSize: 100 })) {
      // The filter is our assumption; checking the field too keeps a service that ignores it from misleading us.
      if (payment.reference === reference) return payment;
    }
    return undefined;
  }

  return {
    /** The payment carrying the order's reference, created (POST /payment/create) only when the service has none. */
    async ensurePayoutPayment(order: PayoutOrder): Promise<PaymentRecord> {
      return asCreate(async () => {
        const existing = await findByReference(order.reference);
        if (existing) return paymentRecord(existing);
        const { id } = await ramp.payments.create(order);
        return paymentRecord(await ramp.payments.detail({ id }));
      }, failureOptions);
    },
  };
}

export type PayoutActivities = ReturnType<typeof createPayoutActivities>;
