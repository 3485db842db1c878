export { createRampActivities, type RampActivities, type OnrampSetup, type OfframpSetup } from './ramp-activities';
