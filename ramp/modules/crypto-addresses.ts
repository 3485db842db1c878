/** Crypto addresses (interface: "Crypto addresses"). */
import { z } from 'zod';
import { jsonBody } from '../http-client';
import {
  AddCryptoAddressRequestSchema,
  CRYPTO_ADDRESS_CURRENCIES,
  CryptoAddressSchema,
  MaybeCreatedIdSchema,
  type AddCryptoAddressRequest,
  type CryptoAddress,
  type MaybeCreatedId,
  type Page,
  type Pagination,
} from '../schemas';
import { validateRequest } from '../validation';
import { EndpointModule, RecordId, type ListEndpoint } from './endpoint';

const CryptoAddressFiltersSchema = z.object({
  /** Omit to list the addresses of every customer of the partner. */
  customerId: z.string().min(1).optional(),
  currency: z.enum(CRYPTO_ADDRESS_CURRENCIES).optional(),
});
export type CryptoAddressFilters = z.infer<typeof CryptoAddressFiltersSchema>;

const CRYPTO_ADDRESS_LIST: ListEndpoint<CryptoAddressFilters, CryptoAddress> = {
  path: '/crypto-address/list',
  filters: CryptoAddressFiltersSchema,
  filterOrder: [
    ['customerId', 'customerId'],
    ['currency', 'currency'],
  ],
  item: CryptoAddressSchema,
};

/** The requiredness of the two detail parameters is not shown; we require the id and send the customer when given. */
const CryptoAddressLookupSchema = z.object({ id: RecordId, customerId: z.string().min(1).optional() });
export type CryptoAddressLookup = z.infer<typeof CryptoAddressLookupSchema>;

export class CryptoAddressesModule extends EndpointModule {
  /** POST /crypto-address/add: registers a customer's wallet. Not idempotent: look it up first. */
  async add(request: AddCryptoAddressRequest): Promise<MaybeCreatedId> {
    const body = validateRequest(AddCryptoAddressRequestSchema, request, {
      method: 'POST',
      path: '/crypto-address/add',
    });
    return this.http.request(
      { method: 'POST', path: '/crypto-address/add', body: jsonBody(body) },
      MaybeCreatedIdSchema,
    );
  }

  /** GET /crypto-address/list: one page. */
  async list(params: Pagination & CryptoAddressFilters = {}): Promise<Page<CryptoAddress>> {
    return this.listPage(CRYPTO_ADDRESS_LIST, params);
  }

  iterate(params: Pagination & CryptoAddressFilters = {}): AsyncGenerator<CryptoAddress, void, undefined> {
    return this.iterateList(CRYPTO_ADDRESS_LIST, params);
  }

  /** GET /crypto-address/detail. */
  async detail(lookup: CryptoAddressLookup): Promise<CryptoAddress> {
    const checked = validateRequest(CryptoAddressLookupSchema, lookup, {
      method: 'GET',
      path: '/crypto-address/detail',
    });
    return this.getData(
      '/crypto-address/detail',
      [
        ['id', checked.id],
        ['customerId', checked.customerId],
      ],
      CryptoAddressSchema,
    );
  }
}
