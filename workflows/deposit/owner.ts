/**
 * Whose deposit it is: the journey of the customer the service's record of the deposit names
 * (workflows/common/trust.ts: an owner is learned from a signed read or rampflow's own records, never from
 * a payload). rampflow's own index answers first: each journey indexes its customer's service id as
 * `RampCustomerId`. The service's record of the customer is the fallback, for a journey not indexed
 * yet, one past retention, or a customer no journey took (activities/customer-journey-lookup.ts).
 */
import { proxyLocalActivities } from '@temporalio/workflow';
import type { CustomerJourneyLookupActivities } from '../../activities/customer-journey-lookup';
import { ACTIVITY_RETRY, patientReadOptions } from '../common/activity-options';
import { depositActivities as act } from './service-calls';
import { DEPOSIT_JOURNEY_FOUND_LOCALLY, takesPatch } from '../common/patches';
import { orPark } from '../common/service-failures';

/**
 * The index, asked by a local activity: a visibility query from the worker that runs the deposit,
 * with no activity task (and none of the server's work for one) in the common case where it answers.
 */
const index = proxyLocalActivities<CustomerJourneyLookupActivities>({
  startToCloseTimeout: '10 seconds',
  retry: ACTIVITY_RETRY,
  summary: "find the customer's journey in rampflow's index",
});

/** The partner's externalId of the customer `customerId`, and so its journey; null when it has none. */
export async function journeyOfCustomer(customerId: string): Promise<string | null> {
  if (!takesPatch(DEPOSIT_JOURNEY_FOUND_LOCALLY)) {
    // Deposits recorded before the patch asked both in one activity on the service queue.
    const owner = await orPark("finding the deposit's journey", () =>
      act.findCustomerJourney.executeWithOptions(patientReadOptions("find the customer's journey"), [customerId]),
    );
    return owner.externalId;
  }
  const indexed = await orPark("finding the deposit's journey", () => index.findIndexedJourney(customerId));
  if (indexed !== null) return indexed;
  // A call to the service: an activity on the service queue, at its rate and the deposit's priority.
  return orPark("finding the deposit's customer", () =>
    act.findCustomerExternalId.executeWithOptions(patientReadOptions("find the customer's externalId"), [customerId]),
  );
}
