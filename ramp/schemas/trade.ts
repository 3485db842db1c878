/** Trade (interface: "Trade"). */
import { z } from 'zod';
import { DecimalString, Identifier, TimestampString } from './common';

/** Every field of the interface's table is required; `status` stays open (only `SETTLED` is shown). */
export const TradeSchema = z.looseObject({
  id: Identifier,
  fromAmount: DecimalString,
  fromCurrency: z.string(),
  toAmount: DecimalString,
  toCurrency: z.string(),
  status: z.string(),
  createTime: TimestampString,
  deposit: z.looseObject({
    id: Identifier,
    currency: z.string(),
    amount: DecimalString,
  }),
});
export type Trade = z.infer<typeof TradeSchema>;

/**
 * GET /trade/list: shape not shown. We assume the usual paginated `data` whose items carry at least
 * an `id` (the iterator de-duplicates by it); the rest passes through unchecked.
 */
export const TradeListItemSchema = z.looseObject({ id: Identifier });
export type TradeListItem = z.infer<typeof TradeListItemSchema>;
