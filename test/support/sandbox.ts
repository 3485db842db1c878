/**
 * A sandbox on a loopback port for one test file, with a signed client and typed calls to its
 * simulation endpoints (the steps the real service takes on its own, and the partner's dashboard).
 */
import { z } from 'zod';
import { jsonBody, RampClient, type RampAssumptionOverrides } from '../../ramp';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';

export const TEST_PARTNER = { apiKey: 'test-key', apiSecret: 'test-secret-0123456789' };

const Record = z.looseObject({ id: z.string(), status: z.string().optional() });
const PendingFaults = z.array(
  z
    .object({
      path: z.string(),
      kind: z.enum(['HTTP_5XX', 'DELAY', 'RESET', 'UNAUTHORISED', 'REFUSED']),
      remaining: z.number(),
      afterHandling: z.boolean(),
    })
    .loose(),
);

export class SandboxControl {
  constructor(private readonly ramp: RampClient) {}

  private post(path: string, body: unknown) {
    return this.ramp.http.request({ method: 'POST', path, body: jsonBody(body) }, Record);
  }

  approveCustomer = (id: string) => this.post('/sandbox/customer/approve', { id });
  rejectCustomer = (id: string) => this.post('/sandbox/customer/reject', { id });
  deleteCustomer = (id: string) => this.post('/sandbox/customer/delete', { id });
  approveVirtualAccount = (id: string) => this.post('/sandbox/virtual-account/approve', { id });
  rejectVirtualAccount = (id: string) => this.post('/sandbox/virtual-account/reject', { id });
  approveDepositAddress = (id: string) => this.post('/sandbox/deposit-address/approve', { id });
  confirmDeposit = (id: string) => this.post('/sandbox/deposit/confirm', { id });
  rejectDeposit = (id: string) => this.post('/sandbox/deposit/reject', { id });
  requireDepositAction = (id: string) => this.post('/sandbox/deposit/require-action', { id });
  /** The service gives a CONFIRMED deposit's money back: REJECTED again, with DEPOSIT_REJECTED (DEPOSIT_REFUND, ramp/assumptions.ts). */
  refundDeposit = (id: string) => this.post('/sandbox/deposit/refund', { id });
  settleTrade = (id: string) => this.post('/sandbox/trade/settle', { id });
  settlePayment = (id: string) => this.post('/sandbox/payment/settle', { id });
  /** The service gives up on a PENDING payment: FAILED, with its reason. */
  failPayment = (id: string, reason?: string) =>
    this.post('/sandbox/payment/fail', { id, ...(reason ? { reason } : {}) });

  simulateFiatDeposit = (body: {
    virtualAccountId: string;
    amount: string;
    currency: string;
    sender: { bsbNumber?: string; accountNumber: string; accountName?: string };
  }) => this.post('/sandbox/deposit/simulate', body);
  simulateCryptoDeposit = (body: {
    depositAddressId: string;
    amount: string;
    currency: string;
    sender: { address: string; network: string };
  }) => this.post('/sandbox/deposit/simulate', body);

  /** The next `count` answers of `path` fail; with afterHandling the request takes effect first. */
  /** Faults on one path, or on every path but the sandbox's tools (`*`); `count` 0 clears them. */
  injectFault = (fault: {
    path: string;
    kind: 'HTTP_5XX' | 'DELAY' | 'RESET' | 'UNAUTHORISED' | 'REFUSED';
    count?: number;
    afterHandling?: boolean;
    delayMs?: number;
    apiKey?: string;
    /** Only calls naming this customer; with count 0, clears only its rules. */
    externalId?: string;
    /** Only calls naming this customer's id at the service (query, body, or the body's `from`); with count 0, clears only its rules. */
    customerId?: string;
  }) => this.ramp.http.request({ method: 'POST', path: '/sandbox/faults', body: jsonBody(fault) }, z.unknown());

  /** The partner's rate limit: above callsPerSecond calls in any second, 429 with Retry-After; 0 lifts it. */
  limitRate = (body: { callsPerSecond: number; retryAfterSeconds?: number }) =>
    this.ramp.http.request({ method: 'POST', path: '/sandbox/rate-limit', body: jsonBody(body) }, z.unknown());

  /** The partner's webhook deliveries: a share of attempts lost on the way, and later events held back; both 0 lifts them. */
  deliveryFaults = (body: { lostShare?: number; lostForGoodShare?: number; delaySeconds?: number }) =>
    this.ramp.http.request({ method: 'POST', path: '/sandbox/delivery-faults', body: jsonBody(body) }, z.unknown());

  /** Every webhook delivery of the partner with its attempts (outcome and error of each). */
  deliveries = () =>
    this.ramp.http.request(
      { method: 'GET', path: '/sandbox/deliveries' },
      z.array(
        z
          .object({
            status: z.string(),
            attempts: z.array(z.object({ outcome: z.string(), error: z.string().nullable() }).loose()),
          })
          .loose(),
      ),
    );

  /** The injected faults still to be served, each with how many answers it has left. */
  pendingFaults = () => this.ramp.http.request({ method: 'GET', path: '/sandbox/faults' }, PendingFaults);

  /** Many customers, deposits for the newest, other customers' flows and trades, at once and unannounced (sandbox/domain/seeding.ts). */
  seed = (body: {
    customers?: number;
    externalIdPrefix?: string;
    deposits?: number;
    flows?: number;
    trades?: number;
    tradesCustomerId?: string;
    ageSeconds?: number;
  }) =>
    this.ramp.http.request(
      { method: 'POST', path: '/sandbox/seed', body: jsonBody(body) },
      z.object({ customers: z.number(), deposits: z.number() }).loose(),
    );

  /** What a real sandbox's dashboard top-up does: credit the partner's own balance. */
  creditBalance = (body: { currency: string; amount: string }) =>
    this.ramp.http.request({ method: 'POST', path: '/sandbox/balance/credit', body: jsonBody(body) }, z.unknown());

  /** What a partner does in the service's dashboard: register the customer's own accounts. */
  registerBankAccount = (body: {
    customerId: string;
    currency: string;
    bankName: string;
    accountNo: string;
    swift: string;
  }) => this.post('/sandbox/bank-account/create', body);
  registerCryptoAddress = (body: { customerId: string; currency: string; network: string; address: string }) =>
    this.post('/sandbox/crypto-address/create', body);
}

export interface TestSandbox {
  sandbox: Sandbox;
  ramp: RampClient;
  control: SandboxControl;
  close(): Promise<void>;
}

/** `assumptions`: what the client (and a harness's worker) is told of the service, as RAMP_ASSUMPTIONS_FILE would. */
export async function startTestSandbox(
  options: Partial<SandboxOptions> = {},
  assumptions?: RampAssumptionOverrides,
): Promise<TestSandbox> {
  const sandbox = await createSandbox({ partners: [TEST_PARTNER], ...options });
  const ramp = new RampClient({ baseUrl: sandbox.url, ...TEST_PARTNER, ...(assumptions ? { assumptions } : {}) });
  return {
    sandbox,
    ramp,
    control: new SandboxControl(ramp),
    async close() {
      await ramp.close();
      await sandbox.close();
    },
  };
}
