/**
 * Forward-only status changes. Events can arrive late or out of order (a DEPOSIT_RECEIVED after
 * DEPOSIT_APPROVED); a record is applied only when its status is at least as far along as the one
 * the workflow already holds. Final states never move.
 */

const CUSTOMER_RANK: Record<string, number> = {
  CREATED: 0,
  PENDING: 1,
  APPROVED: 2,
  CONFIRMED: 2,
  REJECTED: 2,
  DELETED: 3,
};
const ACCOUNT_RANK: Record<string, number> = {
  PENDING: 0,
  CREATED: 0,
  VERIFIED: 1,
  APPROVED: 1,
  ENABLED: 1,
  ACTIVE: 1,
  REJECTED: 1,
};
const DEPOSIT_RANK: Record<string, number> = { RECEIVED: 0, ACTION_REQUIRED: 1, CONFIRMED: 2, REJECTED: 2 };
const TRADE_RANK: Record<string, number> = { CREATED: 0, PENDING: 0, SETTLED: 1, FAILED: 1 };

function advances(ranks: Record<string, number>, held: string | undefined, incoming: string): boolean {
  if (held === undefined) return true;
  const heldRank = ranks[held] ?? -1;
  const incomingRank = ranks[incoming] ?? -1;
  // Equal rank may refresh details (a kycLink, account numbers) but not swap one final state for another.
  return incomingRank > heldRank || (incomingRank === heldRank && incoming === held);
}

export const advancesCustomer = (held: string | undefined, incoming: string) => advances(CUSTOMER_RANK, held, incoming);
export const advancesAccount = (held: string | undefined, incoming: string) => advances(ACCOUNT_RANK, held, incoming);
export const advancesDeposit = (held: string | undefined, incoming: string) => advances(DEPOSIT_RANK, held, incoming);
export const advancesTrade = (held: string | undefined, incoming: string) => advances(TRADE_RANK, held, incoming);

/** Virtual accounts say VERIFIED; the interface does not show deposit-address statuses, so we accept the usual words. */
export const isAccountApproved = (status: string): boolean =>
  ['VERIFIED', 'APPROVED', 'ENABLED', 'ACTIVE'].includes(status);
export const isAccountRejected = (status: string): boolean => status === 'REJECTED';
