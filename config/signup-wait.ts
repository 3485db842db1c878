/**
 * How long a signup (update-with-start, workflows/journey/run.ts) waits for the service's KYC link. Kept
 * here, importing nothing, because the partner API's setting (PARTNER_API_SIGNUP_WAIT_SECONDS,
 * config/env.ts) is bounded by what the workflow accepts, and config/ imports nothing of ours.
 */

/** The longest a signup may wait for the KYC link: an update handler holds the journey's continue-as-new. */
export const SIGNUP_WAIT_MAX_SECONDS = 30;
/** How long a signup waits for the KYC link when it does not say. */
export const SIGNUP_WAIT_DEFAULT_SECONDS = 5;
