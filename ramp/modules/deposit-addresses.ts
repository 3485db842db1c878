/** Deposit addresses (interface: "Endpoints that exist": shapes not shown, typed loosely). */
import { z } from 'zod';
import { jsonBody } from '../http-client';
import {
  CreateDepositAddressRequestSchema,
  DepositAddressSchema,
  MaybeCreatedIdSchema,
  type CreateDepositAddressRequest,
  type DepositAddress,
  type MaybeCreatedId,
  type Page,
  type Pagination,
} from '../schemas';
import { validateRequest } from '../validation';
import { EndpointModule, RecordId, type ListEndpoint } from './endpoint';

/** Filters not shown; we assume the crypto-address list's, plus status. */
const DepositAddressFiltersSchema = z.object({
  customerId: z.string().min(1).optional(),
  currency: z.string().min(1).optional(),
  status: z.string().min(1).optional(),
});
export type DepositAddressFilters = z.infer<typeof DepositAddressFiltersSchema>;

const DEPOSIT_ADDRESS_LIST: ListEndpoint<DepositAddressFilters, DepositAddress> = {
  path: '/deposit-address/list',
  filters: DepositAddressFiltersSchema,
  filterOrder: [
    ['customerId', 'customerId'],
    ['currency', 'currency'],
    ['status', 'status'],
  ],
  item: DepositAddressSchema,
};

export class DepositAddressesModule extends EndpointModule {
  /** POST /deposit-address/create. */
  async create(request: CreateDepositAddressRequest): Promise<MaybeCreatedId> {
    const body = validateRequest(CreateDepositAddressRequestSchema, request, {
      method: 'POST',
      path: '/deposit-address/create',
    });
    return this.http.request(
      { method: 'POST', path: '/deposit-address/create', body: jsonBody(body) },
      MaybeCreatedIdSchema,
    );
  }

  /** GET /deposit-address/detail: data shaped like the DEPOSIT_ADDRESS_* event payloads. */
  async detail(lookup: { id: string }): Promise<DepositAddress> {
    const id = validateRequest(RecordId, lookup.id, { method: 'GET', path: '/deposit-address/detail' });
    return this.getData('/deposit-address/detail', [['id', id]], DepositAddressSchema);
  }

  /** GET /deposit-address/list: one page. */
  async list(params: Pagination & DepositAddressFilters = {}): Promise<Page<DepositAddress>> {
    return this.listPage(DEPOSIT_ADDRESS_LIST, params);
  }

  iterate(params: Pagination & DepositAddressFilters = {}): AsyncGenerator<DepositAddress, void, undefined> {
    return this.iterateList(DEPOSIT_ADDRESS_LIST, params);
  }
}
