/**
 * The partner's and the customer's part of a benchmark journey, through the service's own API: the
 * customer created before the journey starts (the journey registers its exit accounts itself), and
 * money sent each way through POST /deposit/mock once it is ACTIVE. No /sandbox/... call.
 */
import { RampRateLimitedError, type RampClient } from '../../ramp';
import type { JourneyRequest } from '../../workflows/schemas';

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const BANK_ACCOUNT = {
  accountNo: '987654321',
  currency: 'AUD',
  bankName: 'Bench Bank',
  swift: 'BENCAU2S',
  beneficiaryName: 'Ada Lovelace',
} as const;
const AUD_SOURCE = { bsbNumber: '062000', accountNumber: '12345678', accountName: 'Ada Lovelace' };
const CRYPTO_SENDER = { address: '0x000000000000000000000000000000000000dEaD', network: 'ETH' };

export function journeyRequest(externalId: string, timings: JourneyRequest['timings']): JourneyRequest {
  return {
    customer: { externalId, realName: 'Ada Lovelace', email: 'ada@example.com' },
    onramp: {
      currency: 'AUD',
      cryptoAddress: { address: WALLET, network: 'ETH', currency: 'USDT', registeredBy: 'journey' },
      audSourceAccount: AUD_SOURCE,
    },
    offramp: { currency: 'USDT', network: 'ETH', bankAccount: { ...BANK_ACCOUNT, registeredBy: 'journey' } },
    timings,
  };
}

/** The customer as a partner would have it before the journey: created with its externalId. */
export async function prepareCustomer(ramp: RampClient, externalId: string): Promise<void> {
  const { id: customerId } = await ramp.customers.create({
    externalId,
    realName: 'Ada Lovelace',
    email: 'ada@example.com',
  });
  if (!customerId) throw new Error(`the sandbox created customer ${externalId} without an id`);
}

/**
 * The customer pays 100 AUD into the virtual account and sends 50 USDT to the deposit address. A
 * service limiting the partner's rate may refuse the simulated payment too (it is the partner's
 * call): it is sent again after the Retry-After.
 */
export async function sendDeposits(
  ramp: RampClient,
  accounts: { virtualAccountId: string; depositAddressId: string },
): Promise<void> {
  await untilAccepted(() =>
    ramp.deposits.mock({
      virtualAccountId: accounts.virtualAccountId,
      amount: '100.00',
      currency: 'AUD',
      sender: AUD_SOURCE,
    }),
  );
  await untilAccepted(() =>
    ramp.deposits.mock({
      depositAddressId: accounts.depositAddressId,
      amount: '50.00',
      currency: 'USDT',
      sender: CRYPTO_SENDER,
    }),
  );
}

async function untilAccepted<T>(send: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof RampRateLimitedError)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.max(error.retryAfterMs, 100)));
    }
  }
}
