/**
 * The payout's activities. The service has no idempotency key, so the partner's reference is the
 * payout's: every create looks the payment up by that reference first, and an outcome-unknown
 * create is retried as that look-up once the request has settled (creates.ts), never resent blind.
 *
 * Only the service's refusal of the create itself (a FAILED answer to the POST: a short balance, a
 * bank account it does not know) is final (`Refused`, at once: it stays refused until someone tops
 * the balance up). A FAILED answer to any read, before or after the POST, is retried like any other
 * failure: after a POST that succeeded, the retry finds the payment by its reference.
 */
import type { RampClient } from '../ramp';
import type { Payment } from '../ramp/schemas';
import type { PayoutInput } from '../workflows/payout/messages';
import type { PaymentRecord } from '../workflows/common/records';
import { asCreate } from './creates';
import { asActivity, DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS, type FailureOptions } from './failures';
import { searchListInActivity, timeOf } from './list-search';
import { paymentRecord } from './records';

export type PayoutOrder = Omit<PayoutInput, 'timings'>;

export function createPayoutActivities(
  ramp: RampClient,
  failureOptions: FailureOptions = { outcomeUnknownRetryDelayMs: DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS },
) {
  /**
   * The payment carrying `reference`. The list's reference filter is our assumption, so the search
   * also checks the field and, should the service ignore the filter, walks the partner's payments the
   * bounded way (list-search.ts): from the newest end, at most a slice of pages per attempt, the
   * cursor heartbeated so the next attempt (a second later) goes on where this one stopped. No
   * creation-time bound: a reference is the payout's key for ever, however old its payment.
   */
  function findByReference(reference: string): Promise<Payment | undefined> {
    return searchListInActivity<Payment>({
      search: `find the payment with reference ${reference}`,
      fetchPage: (pageNum, pageSize) => ramp.payments.list({ reference, pageNum, pageSize }),
      createdAt: (payment) => timeOf(payment.createTime),
      matches: (payment) => payment.reference === reference,
    });
  }

  return {
    /** The payment carrying the order's reference, created (POST /payment/create) only when the service has none. */
    async ensurePayoutPayment(order: PayoutOrder): Promise<PaymentRecord> {
      return asCreate(
        async () => {
          const existing = await findByReference(order.reference);
          if (existing) return paymentRecord(existing);
          const { id } = await ramp.payments.create(order);
          return paymentRecord(await ramp.payments.detail({ id }));
        },
        // A FAILED answer to the POST is a refusal at once (a read's FAILED stays retryable).
        { ...failureOptions, refusedCreateParkAfterMs: 0 },
      );
    },

    /** The payment carrying the payout's reference, if the service has one (a cancel reads it before deciding). */
    async findPayoutPayment(reference: string): Promise<PaymentRecord | null> {
      return asActivity(async () => {
        const found = await findByReference(reference);
        return found ? paymentRecord(found) : null;
      }, failureOptions);
    },
  };
}

export type PayoutActivities = ReturnType<typeof createPayoutActivities>;
