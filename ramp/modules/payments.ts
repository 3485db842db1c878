/** Payments (interface: "Payments", POST /payment/estimate; the real service's create and list). */
import { z } from 'zod';
import { jsonBody } from '../http-client';
import {
  CreatePaymentRequestSchema,
  CreatedIdSchema,
  PaymentQuoteRequestSchema,
  PaymentQuoteSchema,
  type PaymentQuote,
  type PaymentQuoteRequest,
  PaymentListItemSchema,
  PaymentSchema,
  UnknownData,
  type CreatePaymentRequest,
  type CreatedId,
  type Page,
  type Pagination,
  type Payment,
} from '../schemas';
import { validateRequest } from '../validation';
import { EndpointModule, RecordId, type ListEndpoint } from './endpoint';

/** The estimate's request is not shown: any JSON object, sent as given. */
const PaymentEstimateRequestSchema = z.record(z.string(), z.unknown());

/** Filters of GET /payment/list (assumed, like the other lists'): the customer, the status, the partner's reference. */
const PaymentFiltersSchema = z.object({
  customerId: z.string().min(1).optional(),
  status: z.string().min(1).optional(),
  reference: z.string().min(1).optional(),
});
export type PaymentFilters = z.infer<typeof PaymentFiltersSchema>;

const PAYMENT_LIST: ListEndpoint<PaymentFilters, Payment> = {
  path: '/payment/list',
  filters: PaymentFiltersSchema,
  filterOrder: [
    ['customerId', 'customerId'],
    ['status', 'status'],
    ['reference', 'reference'],
  ],
  item: PaymentListItemSchema,
};

export class PaymentsModule extends EndpointModule {
  /**
   * POST /payment/create: a payout from the partner's balance to a registered bank account. Refused
   * with 422 FAILED when the balance is short. Not idempotent: after an outcome-unknown answer, look
   * the payment up by its `reference` (list) rather than sending it again.
   */
  async create(request: CreatePaymentRequest): Promise<CreatedId> {
    const body = validateRequest(CreatePaymentRequestSchema, request, { method: 'POST', path: '/payment/create' });
    return this.http.request({ method: 'POST', path: '/payment/create', body: jsonBody(body) }, CreatedIdSchema);
  }

  /** GET /payment/detail. */
  async detail(lookup: { id: string }): Promise<Payment> {
    const id = validateRequest(RecordId, lookup.id, { method: 'GET', path: '/payment/detail' });
    return this.getData('/payment/detail', [['id', id]], PaymentSchema);
  }

  /** GET /payment/list: one page. */
  async list(params: Pagination & PaymentFilters = {}): Promise<Page<Payment>> {
    return this.listPage(PAYMENT_LIST, params);
  }

  iterate(params: Pagination & PaymentFilters = {}): AsyncGenerator<Payment, void, undefined> {
    return this.iterateList(PAYMENT_LIST, params);
  }

  /** GET /payment/estimate: what a payout of `deductAmount` would deliver in `receivedCurrency`. */
  async quote(request: PaymentQuoteRequest): Promise<PaymentQuote> {
    const checked = validateRequest(PaymentQuoteRequestSchema, request, { method: 'GET', path: '/payment/estimate' });
    return this.getData(
      '/payment/estimate',
      [
        ['deductCurrency', checked.deductCurrency],
        ['deductAmount', checked.deductAmount],
        ['receivedCurrency', checked.receivedCurrency],
      ],
      PaymentQuoteSchema,
    );
  }

  /** POST /payment/estimate (shapes not shown; the data comes back untyped). */
  async estimate(request: Record<string, unknown>): Promise<unknown> {
    const body = validateRequest(PaymentEstimateRequestSchema, request, { method: 'POST', path: '/payment/estimate' });
    return this.http.request({ method: 'POST', path: '/payment/estimate', body: jsonBody(body) }, UnknownData);
  }
}
