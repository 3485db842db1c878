/** The typed, signed client of the partner ramp service. */
export { RampClient } from './client';
export { RampHttpClient, jsonBody, type RampClientOptions, type RampCall, type RampResponse } from './http-client';
export { withCallLimits, currentCallLimits, type CallLimits } from './call-limits';
export * from './errors';
export * from './assumptions';
export { readRampEnvironment, RampEnvironmentSchema, type RampEnvironment } from './environment';
export { buildRawQuery, encodeQueryComponent } from './query';
export { encodeMultipart, type MultipartFile } from './multipart';
export { canonicalString, bodySha256Hex, signCanonical, signaturesMatch, splitRequestTarget, SIGNATURE_HEADERS } from './signing';
export * from './wallet-ownership';
export * from './events';
export * from './schemas';
