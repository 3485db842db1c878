/**
 * What the interface leaves open and rampflow assumes (DESIGN: "What the interface leaves open").
 * Kept in one place so a deployment whose service differs can override them through
 * `RampClientOptions.assumptions` instead of editing the endpoint modules. The sandbox implements
 * the same defaults.
 */

/**
 * Names of the query parameters the interface lists only by label. camelCase throughout: a detail
 * look-up takes the record's id as `id` (customer detail also `externalId`); filters are
 * `customerId`, `currency`, `status` and `type`.
 */
export interface QueryParameterNames {
  id: string;
  externalId: string;
  /** Customer detail by the customer's email (the third look-up key the real service offers). */
  email: string;
  /** The payment list's filter on the partner's own `reference` (how a payout is found again). */
  reference: string;
  /** GET /autoramp-flow/trade-preview: the pair and the amount to convert. */
  fromCurrency: string;
  toCurrency: string;
  amount: string;
  /** GET /payment/estimate, named like the payment's own fields. */
  deductCurrency: string;
  deductAmount: string;
  receivedCurrency: string;
  /** The older generation's GET /deposit-address and look-ups by user (snake_case, as that generation is). */
  network: string;
  userId: string;
  customerId: string;
  currency: string;
  status: string;
  type: string;
  pageNum: string;
  pageSize: string;
}

export interface RampAssumptions {
  queryParameterNames: QueryParameterNames;
  /** Path of the older generation's create-va; the interface does not say where the `old` module lives. */
  legacyCreateVaPath: string;
  /**
   * The older generation answers 200 with the outcome in `status` and does not show its values.
   * Treated as success: `SUCCESS`/`OK` in any case, or the number 200.
   */
  isLegacySuccessStatus: (status: string | number) => boolean;
  /** Form field names of POST /deposit/submitAttachmentFile (not shown): the deposit's id and the file. */
  attachmentFields: { depositId: string; file: string };
  /** Form field name of each identity document in POST /customer/createWithFiles (the customer's fields go under their own names). */
  customerDocumentField: string;
  /**
   * How far the local clock may be from the service's `Date` before we correct it. The service's
   * accepted skew is not shown (DESIGN assumes 60 s); correcting from 5 s keeps us far inside it,
   * while staying above the one-second resolution of `Date`.
   */
  clockSkewToleranceMs: number;
  /**
   * The largest pageSize the service accepts (interface: "Limits", 1..100). Every list call asks for
   * at most this many; a larger request is cut down to it, so callers walk more, smaller pages.
   */
  maxPageSize: number;
  /**
   * How the service orders its customer, deposit and trade lists (see LIST ORDER below): reconciliation
   * reads only what is new at the head when `newest-first`, every list in full when `unknown`. When
   * unset, RECONCILE_LIST_ORDER decides.
   */
  listOrder?: 'newest-first' | 'unknown';
}

export const DEFAULT_ASSUMPTIONS: RampAssumptions = {
  queryParameterNames: {
    id: 'id',
    externalId: 'externalId',
    email: 'email',
    reference: 'reference',
    fromCurrency: 'fromCurrency',
    toCurrency: 'toCurrency',
    amount: 'amount',
    deductCurrency: 'deductCurrency',
    deductAmount: 'deductAmount',
    receivedCurrency: 'receivedCurrency',
    network: 'network',
    userId: 'user_id',
    customerId: 'customerId',
    currency: 'currency',
    status: 'status',
    type: 'type',
    pageNum: 'pageNum',
    pageSize: 'pageSize',
  },
  legacyCreateVaPath: '/create-va',
  isLegacySuccessStatus: (status) =>
    typeof status === 'number' ? status === 200 : ['SUCCESS', 'OK'].includes(status.toUpperCase()),
  attachmentFields: { depositId: 'id', file: 'file' },
  customerDocumentField: 'files',
  clockSkewToleranceMs: 5_000,
  maxPageSize: 100,
};

/** The older generation's other paths (the real service's; LegacyModule), answered 200 with the outcome in `status`. */
export const OLDER_GENERATION_PATHS: readonly string[] = [
  '/create-user',
  '/get-user',
  '/create-whitelist',
  '/update-whitelist',
  '/get-whitelist',
  '/deposit-address',
];

/** Whether a path belongs to the older generation, whose answers `rampflow api` reads by `status`. */
export function isOlderGenerationPath(assumptions: RampAssumptions, path: string): boolean {
  return path === assumptions.legacyCreateVaPath || OLDER_GENERATION_PATHS.includes(path);
}

/** Overrides merged over the defaults; query parameter names may be overridden one by one. */
export type RampAssumptionOverrides = Partial<Omit<RampAssumptions, 'queryParameterNames'>> & {
  queryParameterNames?: Partial<QueryParameterNames>;
};

export function resolveAssumptions(overrides: RampAssumptionOverrides = {}): RampAssumptions {
  return {
    ...DEFAULT_ASSUMPTIONS,
    ...overrides,
    queryParameterNames: { ...DEFAULT_ASSUMPTIONS.queryParameterNames, ...overrides.queryParameterNames },
  };
}

/*
 * LIST ORDER. The order of the service's list endpoints (customers, deposits, trades), which the interface does
 * not state. rampflow assumes newest first, as list APIs of this kind commonly answer, and lets a
 * deployment say otherwise (`RECONCILE_LIST_ORDER`, config/env.ts): reconciliation reads a list only
 * down to what it saw at the head last time when the order is newest first, and reads all of it
 * (up to its page limit, from both ends, so the newest records are read whichever end they are at)
 * when the order is `unknown`. A service that turns out to list oldest first is caught, not trusted:
 * a list that grew while its head stayed the same is read in full, from both ends, with a warning
 * (activities/reconcile-activities.ts). The lookups that search a list (activities/list-search.ts)
 * assume no order: they tell it from the creation times at the list's two ends. The orders
 * themselves (LIST_ORDERS) are in config/list-orders.ts, with the setting that chooses one.
 */

/**
 * Refunds (issue 23). The interface says a deposit's REJECTED means "Deposit rejected or refunded"
 * and ties it to DEPOSIT_REJECTED, but shows no transitions and no trade or payment statuses besides
 * SETTLED and CONFIRMED. rampflow assumes, and the sandbox implements (sandbox/domain/money-movement.ts):
 *
 * - The service refunds only a deposit it has CONFIRMED: before its trade, while the trade is
 *   pending, after it settled, or after the offramp payment settled (the deposit stays CONFIRMED
 *   through all of those). A deposit still RECEIVED or ACTION_REQUIRED is rejected, not refunded.
 * - A refund shows on the deposit alone: its status becomes REJECTED in detail and list, and the
 *   service fires DEPOSIT_REJECTED (to a subscription under the old name, `deposit.rejected`) with
 *   the deposit record, now REJECTED, as payload. The record has no field saying "refunded" (none is
 *   shown), so a refund is told from a rejection by what was already known of the deposit: one read
 *   REJECTED after it was CONFIRMED, or after a trade named it, was refunded, a reversal.
 * - The trade and the payment are history and are not rewritten: a SETTLED trade stays SETTLED, a
 *   CONFIRMED payment stays CONFIRMED, and the trade still names the deposit (the evidence of what
 *   was reversed). The refund is a movement of its own: the deposit's amount, in its currency, leaves
 *   the partner's balance, which may go below zero once the trade has converted it (pricing and
 *   settlement are not shown).
 * - A trade or payment still PENDING when its deposit is refunded never settles (the money went back
 *   instead) and stays PENDING, since no other status is shown: whoever waits for it must read the
 *   deposit to learn why.
 */
export const DEPOSIT_REFUND = {
  /** The only deposit status a refund starts from. */
  from: ['CONFIRMED'],
  /** The status a refunded deposit shows. */
  status: 'REJECTED',
  /** The event it fires, with the deposit record as payload. */
  event: 'DEPOSIT_REJECTED',
} as const;
