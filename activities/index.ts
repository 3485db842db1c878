export { createRampActivities, type RampActivities, type OnrampSetup, type OfframpSetup } from './ramp-activities';
export { createEventRoutingActivities, type EventRoutingActivities } from './event-routing-activities';
export { createExitAccountActivities, type ExitAccountActivities } from './exit-account-activities';
export { createPayoutActivities, type PayoutActivities, type PayoutOrder } from './payout-activities';
export { createReconcileActivities, type ReconcileActivities } from './reconcile-activities';
export { createCustomerJourneyLookupActivities, type CustomerJourneyLookupActivities, type CustomerJourney } from './customer-journey-lookup';
