/** Payments (interface: "Payments", and POST /payment/estimate). */
import { z } from 'zod';
import { jsonBody } from '../http-client';
import { PaymentSchema, UnknownData, type Payment } from '../schemas';
import { validateRequest } from '../validation';
import { EndpointModule, RecordId } from './endpoint';

/** The estimate's request is not shown: any JSON object, sent as given. */
const PaymentEstimateRequestSchema = z.record(z.string(), z.unknown());

export class PaymentsModule extends EndpointModule {
  /** GET /payment/detail. */
  async detail(lookup: { id: string }): Promise<Payment> {
    const id = validateRequest(RecordId, lookup.id, { method: 'GET', path: '/payment/detail' });
    return this.getData('/payment/detail', [['id', id]], PaymentSchema);
  }

  /** POST /payment/estimate (shapes not shown; the data comes back untyped). */
  async estimate(request: Record<string, unknown>): Promise<unknown> {
    const body = validateRequest(PaymentEstimateRequestSchema, request, { method: 'POST', path: '/payment/estimate' });
    return this.http.request({ method: 'POST', path: '/payment/estimate', body: jsonBody(body) }, UnknownData);
  }
}
