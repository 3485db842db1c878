/** The typed, signed client of the partner ramp service. */
export { RampClient } from './client';
export { jsonBody } from './http-client';
export { withCallLimits, type CallLimits } from './call-limits';
export * from './errors';
export * from './assumptions';
export * from './wallet-ownership';
export * from './events';
export * from './schemas';
