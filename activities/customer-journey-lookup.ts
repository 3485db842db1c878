/**
 * Which journey a customer of the service belongs to, for a deposit that read its customer id from the
 * service (workflows/common/trust.ts: an owner is learned from a signed read or rampflow's own records, never
 * from a payload).
 *
 * rampflow's own record comes first: each journey indexes the service's id of its customer as
 * `RampCustomerId`, learned from its own create or look-up, so one visibility query answers with no
 * call to the service. The service's word is the fallback (its customer record's `externalId`, one
 * read): a journey that has not been indexed yet, one past retention, a customer no journey took.
 * A deposit asks the index in the activity that first reads its record (`getDepositWithIndexedJourney`,
 * activities/ramp-activities.ts: the customer is the one the service's record names), and again by a
 * local activity (`findIndexedJourney`: a visibility query from the worker that runs the deposit, no
 * activity task of its own) only when that look-up did not answer; the service by an activity on the
 * service queue, so every call to the service keeps its queue's rate and priority.
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { journeyWorkflowId } from '../workflows/common/messages';
import { RampExternalId } from '../observability/search-attributes';

/** The service's customer ids are UUIDs; anything else is not put inside a visibility query. */
const QUERYABLE_CUSTOMER_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/**
 * The externalId of the one journey indexed with this customer id, or undefined when there is not
 * exactly one: a visibility query by the client of the worker that runs the activity.
 */
export async function indexedJourneyOf(client: Client, customerId: string): Promise<string | undefined> {
  if (!QUERYABLE_CUSTOMER_ID.test(customerId)) return undefined;
  const externalIds = new Set<string>();
  const query = `WorkflowType = 'customerJourney' AND RampCustomerId = '${customerId}'`;
  for await (const workflow of client.workflow.list({ query, pageSize: 10 })) {
    const externalId = workflow.typedSearchAttributes.get(RampExternalId);
    // A journey's workflow ID is its externalId's: the index and the ID must agree.
    if (externalId && workflow.workflowId === journeyWorkflowId(externalId)) externalIds.add(externalId);
    if (externalIds.size > 1) return undefined; // never guess between two journeys: ask the service
  }
  return externalIds.size === 1 ? [...externalIds][0] : undefined;
}

export function createCustomerJourneyLookupActivities() {
  return {
    /**
     * The externalId of the one journey rampflow's index holds for this customer, null when it holds
     * none or several. No call to the service: deposits run it as a local activity and ask the service (findCustomerExternalId, on the service queue) only when it answers null.
     */
    async findIndexedJourney(customerId: string): Promise<string | null> {
      return (await indexedJourneyOf(Context.current().client, customerId)) ?? null;
    },
  };
}

export type CustomerJourneyLookupActivities = ReturnType<typeof createCustomerJourneyLookupActivities>;
