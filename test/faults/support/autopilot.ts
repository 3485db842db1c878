import { uniformAutopilotDelays } from '../../../sandbox';

/**
 * The service walks every step by itself a second after the previous one: in real time, or, on a
 * frozen clock, all within one advance.
 */
export const ONE_SECOND_AUTOPILOT = uniformAutopilotDelays(1);
