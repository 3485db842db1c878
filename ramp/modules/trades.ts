/** Trades (interface: "Endpoints that exist": detail shaped like the TRADE_* payloads; list not shown). */
import { z } from 'zod';
import {
  TradeListItemSchema,
  TradeSchema,
  type Page,
  type Pagination,
  type Trade,
  type TradeListItem,
} from '../schemas';
import { validateRequest } from '../validation';
import { EndpointModule, RecordId, type ListEndpoint } from './endpoint';

/** Filters not shown; we assume customerId and status, like the deposit list. */
const TradeFiltersSchema = z.object({
  customerId: z.string().min(1).optional(),
  status: z.string().min(1).optional(),
});
export type TradeFilters = z.infer<typeof TradeFiltersSchema>;

const TRADE_LIST: ListEndpoint<TradeFilters, TradeListItem> = {
  path: '/trade/list',
  filters: TradeFiltersSchema,
  filterOrder: [
    ['customerId', 'customerId'],
    ['status', 'status'],
  ],
  item: TradeListItemSchema,
};

export class TradesModule extends EndpointModule {
  /** GET /trade/detail. */
  async detail(lookup: { id: string }): Promise<Trade> {
    const id = validateRequest(RecordId, lookup.id, { method: 'GET', path: '/trade/detail' });
    return this.getData('/trade/detail', [['id', id]], TradeSchema);
  }

  /** GET /trade/list: one page (items checked for `id` only; their shape is not shown). */
  async list(params: Pagination & TradeFilters = {}): Promise<Page<TradeListItem>> {
    return this.listPage(TRADE_LIST, params);
  }

  iterate(params: Pagination & TradeFilters = {}): AsyncGenerator<TradeListItem, void, undefined> {
    return this.iterateList(TRADE_LIST, params);
  }
}
