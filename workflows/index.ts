/** Every workflow the rampflow worker runs (the worker bundles this file). */
import './versioning-behaviours';

export { customerJourney } from './journey/workflow';
export { depositLifecycle } from './deposit/workflow';
export { partnerEventDelivery } from './partner-events/delivery';
export { payout } from './payout/workflow';
export { rampEvent } from './ramp-event/workflow';
export { reconcileWithService } from './reconcile/workflow';
