/** The calls a deposit makes to the ramp service and to rampflow's own index (workflows/deposit/workflow.ts). */
import type { CustomerJourneyLookupActivities, RampActivities } from '../../activities';
import { changeOptions } from '../common/activity-options';
import { serviceActivities } from '../common/service-activities';

// On the service task queue at the workflow's own priority (workflows/common/service-activities.ts).
export const depositActivities = serviceActivities<RampActivities & CustomerJourneyLookupActivities>(
  changeOptions('a call to the ramp service'),
);
