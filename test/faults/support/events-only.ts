/**
 * Journey timings under which only events move a journey: polls an hour apart, deadlines a day away.
 * With a USD onramp (no whitelist, which only polls see) and customers signed up with their exits
 * before the journey starts, every step has an event.
 */
export const EVENTS_ONLY_TIMINGS = {
  pollIntervalSeconds: 3600,
  kycDeadlineSeconds: 86_400,
  accountsDeadlineSeconds: 86_400,
};

/** The same for the deposit workflows (the worker starts them with these). */
export const EVENTS_ONLY_DEPOSIT_TIMINGS = {
  pollIntervalSeconds: 3600,
  stepDeadlineSeconds: 86_400,
};
