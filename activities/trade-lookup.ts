/**
 * The trade the service made of a deposit, looked for while the deposit waits for it (its event may
 * have been lost). The trade list's filters are not shown (ramp/modules/trades.ts assumes
 * `customerId`, which may be ignored, and a long-lived customer has many trades anyway), so this is
 * a search done the scalable way (list-search.ts): from the newest end, bounded by the deposit's
 * confirmation (a trade is made of a confirmed deposit, so it is not older than that), a slice of
 * pages per attempt with the cursor in the heartbeat.
 */
import type { RampClient } from '../ramp';
import type { Trade, TradeListItem } from '../ramp/schemas';
import { BOUND_SLACK_MS, searchListInActivity, timeOf } from './list-search';

export async function findTradeOfDeposit(
  ramp: RampClient,
  lookup: { depositId: string; customerId: string },
): Promise<Trade | undefined> {
  let trade: Trade | undefined;
  const found = await searchListInActivity<TradeListItem>({
    search: `find the trade of deposit ${lookup.depositId}`,
    fetchPage: (pageNum, pageSize) => ramp.trades.list({ customerId: lookup.customerId, pageNum, pageSize }),
    createdAt: (item) => timeOf(item.createTime),
    matches: async (item) => {
      const listedDeposit = (item as { deposit?: { id?: unknown } }).deposit?.id;
      // List items' shape is not shown: read the detail when the item does not say its deposit.
      if (listedDeposit !== undefined && listedDeposit !== lookup.depositId) return false;
      const detail = await ramp.trades.detail({ id: item.id });
      if (detail.deposit.id !== lookup.depositId) return false;
      trade = detail;
      return true;
    },
    notBefore: () => confirmedAt(ramp, lookup.depositId),
  });
  return found === undefined ? undefined : trade;
}

/**
 * When the deposit was confirmed, less the slack: its `timestamp` is the time of its latest event,
 * which for a CONFIRMED deposit is the confirmation. A deposit in any other state gives no bound
 * (a refund after the trade would move its timestamp past the trade).
 */
async function confirmedAt(ramp: RampClient, depositId: string): Promise<number | undefined> {
  const deposit = await ramp.deposits.detail({ id: depositId });
  if (deposit.status !== 'CONFIRMED') return undefined;
  const time = timeOf(deposit.timestamp);
  return time === undefined ? undefined : time - BOUND_SLACK_MS;
}
