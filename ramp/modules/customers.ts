/** Customers (interface: "Customers"). */
import { z } from 'zod';
import { jsonBody } from '../http-client';
import {
  CreateCustomerRequestSchema,
  CreatedCustomerSchema,
  CustomerListItemSchema,
  CustomerSchema,
  type CreateCustomerRequest,
  type CreatedCustomer,
  type Customer,
  type CustomerListItem,
  type Page,
  type Pagination,
} from '../schemas';
import { validateRequest } from '../validation';
import { EndpointModule, RecordId, type ListEndpoint } from './endpoint';

const CUSTOMER_LIST: ListEndpoint<Record<never, never>, CustomerListItem> = {
  path: '/customer/list',
  filters: z.object({}),
  filterOrder: [],
  item: CustomerListItemSchema,
};

/** Customer detail is looked up by the service's id or by the partner's externalId (at least one). */
const CustomerLookupSchema = z.union([
  z.object({ id: RecordId, externalId: z.string().min(1).optional() }),
  z.object({ id: z.undefined().optional(), externalId: z.string().min(1) }),
]);
export type CustomerLookup = { id: string; externalId?: string } | { id?: undefined; externalId: string };

export class CustomersModule extends EndpointModule {
  /** POST /customer/create. Fields other than externalId are not shown and pass through as given. */
  async create(request: CreateCustomerRequest): Promise<CreatedCustomer> {
    const body = validateRequest(CreateCustomerRequestSchema, request, { method: 'POST', path: '/customer/create' });
    return this.http.request({ method: 'POST', path: '/customer/create', body: jsonBody(body) }, CreatedCustomerSchema);
  }

  /** GET /customer/detail by `id` or `externalId`; the answer may carry `externalId` and `kycLink`. */
  async detail(lookup: CustomerLookup): Promise<Customer> {
    const checked = validateRequest(CustomerLookupSchema, lookup, { method: 'GET', path: '/customer/detail' });
    return this.getData('/customer/detail', [['id', checked.id], ['externalId', checked.externalId]], CustomerSchema);
  }

  /** GET /customer/list: one page. */
  async list(params: Pagination = {}): Promise<Page<CustomerListItem>> {
    return this.listPage(CUSTOMER_LIST, params);
  }

  /** Every customer, page after page. */
  iterate(params: Pagination = {}): AsyncGenerator<CustomerListItem, void, undefined> {
    return this.iterateList(CUSTOMER_LIST, params);
  }
}
