/** Autoramp flows (interface: "Autoramp flows"). */
import { z } from 'zod';
import { jsonBody } from '../http-client';
import {
  AutorampFlowDetailSchema,
  AutorampFlowSchema,
  AutorampFlowStatusSchema,
  AutorampFlowTypeSchema,
  CreateAutorampFlowRequestSchema,
  CreateOfframpFlowRequestSchema,
  CreateOnrampFlowRequestSchema,
  CreatedIdSchema,
  DeleteAutorampFlowRequestSchema,
  TradePreviewRequestSchema,
  TradePreviewSchema,
  type TradePreview,
  type TradePreviewRequest,
  UnknownData,
  type AutorampFlow,
  type CreateAutorampFlowRequest,
  type CreateOfframpFlowRequest,
  type CreateOnrampFlowRequest,
  type CreatedId,
  type DeleteAutorampFlowRequest,
  type Page,
  type Pagination,
} from '../schemas';
import { validateRequest } from '../validation';
import { EndpointModule, RecordId, type ListEndpoint } from './endpoint';

/** There is no customerId filter on this list (release 2026-03-27). */
const AutorampFlowFiltersSchema = z.object({
  type: AutorampFlowTypeSchema.optional(),
  status: AutorampFlowStatusSchema.optional(),
});
export type AutorampFlowFilters = z.infer<typeof AutorampFlowFiltersSchema>;

const AUTORAMP_FLOW_LIST: ListEndpoint<AutorampFlowFilters, AutorampFlow> = {
  path: '/autoramp-flow/list',
  filters: AutorampFlowFiltersSchema,
  filterOrder: [
    ['type', 'type'],
    ['status', 'status'],
  ],
  item: AutorampFlowSchema,
};

export class AutorampFlowsModule extends EndpointModule {
  /** POST /autoramp-flow/create: links an existing entry to an existing exit. */
  async create(request: CreateAutorampFlowRequest): Promise<CreatedId> {
    return this.#post('/autoramp-flow/create', CreateAutorampFlowRequestSchema, request);
  }

  /** POST /autoramp-flow/onramp: the service creates a virtual account for `from` and links it to the crypto address `to`. */
  async createOnramp(request: CreateOnrampFlowRequest): Promise<CreatedId> {
    return this.#post('/autoramp-flow/onramp', CreateOnrampFlowRequestSchema, request);
  }

  /** POST /autoramp-flow/offramp: the service creates a deposit address for `from` and links it to the bank account `to`. */
  async createOfframp(request: CreateOfframpFlowRequest): Promise<CreatedId> {
    return this.#post('/autoramp-flow/offramp', CreateOfframpFlowRequestSchema, request);
  }

  /** POST /autoramp-flow/delete (shapes not shown: we send `{id}` and return the data untyped). */
  async delete(request: DeleteAutorampFlowRequest): Promise<unknown> {
    const body = validateRequest(DeleteAutorampFlowRequestSchema, request, {
      method: 'POST',
      path: '/autoramp-flow/delete',
    });
    return this.http.request({ method: 'POST', path: '/autoramp-flow/delete', body: jsonBody(body) }, UnknownData);
  }

  /** GET /autoramp-flow/detail (no customerId, no creator). */
  async detail(lookup: { id: string }): Promise<AutorampFlow> {
    const id = validateRequest(RecordId, lookup.id, { method: 'GET', path: '/autoramp-flow/detail' });
    return this.getData('/autoramp-flow/detail', [['id', id]], AutorampFlowDetailSchema);
  }

  /** GET /autoramp-flow/list: one page. */
  async list(params: Pagination & AutorampFlowFilters = {}): Promise<Page<AutorampFlow>> {
    return this.listPage(AUTORAMP_FLOW_LIST, params);
  }

  iterate(params: Pagination & AutorampFlowFilters = {}): AsyncGenerator<AutorampFlow, void, undefined> {
    return this.iterateList(AUTORAMP_FLOW_LIST, params);
  }

  /** GET /autoramp-flow/trade-preview: an indicative rate and result for converting `amount` of `fromCurrency`. */
  async tradePreview(request: TradePreviewRequest): Promise<TradePreview> {
    const checked = validateRequest(TradePreviewRequestSchema, request, {
      method: 'GET',
      path: '/autoramp-flow/trade-preview',
    });
    return this.getData(
      '/autoramp-flow/trade-preview',
      [
        ['fromCurrency', checked.fromCurrency],
        ['toCurrency', checked.toCurrency],
        ['amount', checked.amount],
      ],
      TradePreviewSchema,
    );
  }

  async #post<S extends z.ZodType>(path: string, schema: S, request: unknown): Promise<CreatedId> {
    const body = validateRequest(schema, request, { method: 'POST', path });
    return this.http.request({ method: 'POST', path, body: jsonBody(body) }, CreatedIdSchema);
  }
}
