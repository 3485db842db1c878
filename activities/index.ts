export { createRampActivities, type RampActivities, type OnrampSetup } from './ramp-activities';
export { createEventRoutingActivities } from './event-routing-activities';
export { createExitAccountActivities, type ExitAccountActivities } from './exit-account-activities';
export { createPayoutActivities, type PayoutActivities, type PayoutOrder } from './payout-activities';
export { createReconcileActivities } from './reconcile-activities';
export type { CustomerJourneyLookupActivities } from './customer-journey-lookup';
