/** Every workflow the rampflow worker runs (the worker bundles this file). */
import './versioning-behaviours';

export { customerJourney } from './journey';
export { depositLifecycle } from './deposit';
export { partnerEventDelivery } from './partner-event-delivery';
export { payout } from './payout';
export { rampEvent } from './ramp-event';
export { reconcileWithService } from './reconcile';
