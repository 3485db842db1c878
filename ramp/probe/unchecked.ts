/**
 * The assumptions `rampflow probe` cannot check without moving money, creating records the service
 * keeps, or waiting for hours, each with the reason. They are reported as such on every run, so a
 * reader sees what the probe did not cover; docs/deploying/going-live.md says how to check them by hand.
 */
import type { ProbeLine } from './checks';

export const UNCHECKED: readonly ProbeLine[] = [
  {
    check: 'nonce-memory',
    status: 'unchecked',
    detail: 'how long nonces are remembered: needs waiting out the whole skew window between two uses of one nonce',
  },
  {
    check: 'legacy-success-status',
    status: 'unchecked',
    detail: 'the older generation shows its success status only on a call that succeeds, and its calls create records',
  },
  {
    check: 'attachment-fields',
    status: 'unchecked',
    detail: 'the form fields of submitAttachmentFile: needs a deposit that asks for documents',
  },
  {
    check: 'customer-document-field',
    status: 'unchecked',
    detail: 'the form field of createWithFiles: needs creating a customer with identity documents',
  },
  {
    check: 'customer-statuses',
    status: 'unchecked',
    detail: 'the statuses a customer and a virtual account move through: needs the service to review KYC',
  },
  {
    check: 'wallet-ownership-date',
    status: 'unchecked',
    detail: 'the time zone of the wallet-ownership date: needs a signed whitelist near midnight UTC',
  },
  {
    check: 'webhook-retries',
    status: 'unchecked',
    detail: 'the offsets of webhook retries: needs a delivery that fails for hours',
  },
  {
    check: 'refunds-and-payments',
    status: 'unchecked',
    detail: 'how refunds show and how payments name their trade: needs moving money',
  },
  {
    check: 'rate-limit',
    status: 'unchecked',
    detail:
      "the partner's rate limit: finding it means exceeding it (set RAMP_MAX_CALLS_PER_SECOND from the service's word)",
  },
];
