/**
 * The orders a deployment may say the service lists its customers, deposits and trades in
 * (RECONCILE_LIST_ORDER, config/env.ts); why rampflow assumes newest first, and what it does when the
 * order is `unknown`, is in ramp/assumptions.ts.
 */
export const LIST_ORDERS = ['newest-first', 'unknown'] as const;
export type ListOrder = (typeof LIST_ORDERS)[number];
export const DEFAULT_LIST_ORDER: ListOrder = 'newest-first';
