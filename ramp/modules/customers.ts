/** Customers (interface: "Customers"). */
import { z } from 'zod';
import { jsonBody } from '../http-client';
import { encodeMultipart, type MultipartFile } from '../multipart';
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

/**
 * Customer detail is looked up by exactly one of the service's `id`, the partner's `externalId` or
 * the customer's `email` (the parameter name of the last is an assumption, switchable).
 */
const CustomerLookupSchema = z.union([
  z.strictObject({ id: RecordId }),
  z.strictObject({ externalId: z.string().min(1) }),
  z.strictObject({ email: z.string().min(1) }),
]);
export type CustomerLookup = { id: string } | { externalId: string } | { email: string };

export class CustomersModule extends EndpointModule {
  /** POST /customer/create. Fields other than externalId are not shown and pass through as given. */
  async create(request: CreateCustomerRequest): Promise<CreatedCustomer> {
    const body = validateRequest(CreateCustomerRequestSchema, request, { method: 'POST', path: '/customer/create' });
    return this.http.request({ method: 'POST', path: '/customer/create', body: jsonBody(body) }, CreatedCustomerSchema);
  }

  /**
   * POST /customer/createWithFiles: the customer's fields as form fields, each identity document as a
   * file part (field name in assumptions.ts `customerDocumentField`); multipart, so signed with an
   * empty body hash. Not idempotent: look the customer up by externalId first.
   */
  async createWithFiles(request: CreateCustomerRequest, documents: MultipartFile[]): Promise<CreatedCustomer> {
    const path = '/customer/createWithFiles';
    const fields = validateRequest(CreateCustomerRequestSchema, request, { method: 'POST', path });
    if (documents.length === 0)
      validateRequest(z.array(z.unknown()).min(1, 'at least one identity document'), documents, {
        method: 'POST',
        path,
      });
    const multipart = encodeMultipart([
      ...Object.entries(fields).flatMap(([name, value]) =>
        value === undefined ? [] : [{ name, value: typeof value === 'string' ? value : JSON.stringify(value) }],
      ),
      ...documents.map((file) => ({ name: this.http.assumptions.customerDocumentField, file })),
    ]);
    return this.http.request(
      { method: 'POST', path, body: { bytes: multipart.bytes, contentType: multipart.contentType, hashed: false } },
      CreatedCustomerSchema,
    );
  }

  /** GET /customer/detail by `id`, `externalId` or `email`; the answer may carry `externalId` and `kycLink`. */
  async detail(lookup: CustomerLookup): Promise<Customer> {
    const checked = validateRequest(CustomerLookupSchema, lookup, { method: 'GET', path: '/customer/detail' });
    const [[key, value]] = Object.entries(checked) as [['id' | 'externalId' | 'email', string]];
    return this.getData('/customer/detail', [[key, value]], CustomerSchema);
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
