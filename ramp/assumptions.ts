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
  isLegacySuccessStatus: (status) => (typeof status === 'number' ? status === 200 : ['SUCCESS', 'OK'].includes(status.toUpperCase())),
  attachmentFields: { depositId: 'id', file: 'file' },
  customerDocumentField: 'files',
  clockSkewToleranceMs: 5_000,
};

/** The older generation's other paths (the real service's; LegacyModule), answered 200 with the outcome in `status`. */
export const OLDER_GENERATION_PATHS: readonly string[] = ['/create-user', '/get-user', '/create-whitelist', '/update-whitelist', '/get-whitelist', '/deposit-address'];

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

/**
 * The order of the service's list endpoints (customers, deposits, trades), which the interface does
 * not state. rampflow assumes newest first, as list APIs of this kind commonly answer, and lets a
 * deployment say otherwise (`RECONCILE_LIST_ORDER`, config/env.ts): reconciliation reads a list only
 * down to what it saw at the head last time when the order is newest first, and reads all of it
 * (up to its page limit, from both ends, so the newest records are read whichever end they are at)
 * when the order is `unknown`. A service that turns out to list oldest first is caught, not trusted:
 * a list that grew while its head stayed the same is read in full, from both ends, with a warning
 * (activities/reconcile-activities.ts). The lookups that search a list (activities/list-search.ts)
 * assume no order: they tell it from the creation times at the list's two ends.
 */
export const LIST_ORDERS = ['newest-first', 'unknown'] as const;
export type ListOrder = (typeof LIST_ORDERS)[number];
export const DEFAULT_LIST_ORDER: ListOrder = 'newest-first';
