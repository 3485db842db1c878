/**
 * The partner's and the customer's part of a benchmark journey, through the sandbox's API: the customer
 * and its exit accounts registered before the journey starts, and money sent each way once it is ACTIVE.
 */
import { z } from 'zod';
import { jsonBody, type RampClient } from '../../ramp';
import type { JourneyRequest } from '../../workflows/journey-input';

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const BANK_ACCOUNT_NO = '987654321';
const AUD_SOURCE = { bsbNumber: '062000', accountNumber: '12345678', accountName: 'Ada Lovelace' };
const CRYPTO_SENDER = { address: '0x000000000000000000000000000000000000dEaD', network: 'ETH' };

const SandboxRecord = z.looseObject({ id: z.string() });

const post = (ramp: RampClient, path: string, body: unknown) => ramp.http.request({ method: 'POST', path, body: jsonBody(body) }, SandboxRecord);

export function journeyRequest(externalId: string, timings: JourneyRequest['timings']): JourneyRequest {
  return {
    customer: { externalId, realName: 'Ada Lovelace', email: 'ada@example.com' },
    onramp: { currency: 'AUD', cryptoAddress: { address: WALLET, network: 'ETH' }, audSourceAccount: AUD_SOURCE },
    offramp: { currency: 'USDT', network: 'ETH', bankAccount: { accountNo: BANK_ACCOUNT_NO } },
    timings,
  };
}

/** The customer as a partner would have it before the journey: created with its externalId, exits registered. */
export async function prepareCustomer(ramp: RampClient, externalId: string): Promise<void> {
  const { id: customerId } = await ramp.customers.create({ externalId, realName: 'Ada Lovelace', email: 'ada@example.com' });
  if (!customerId) throw new Error(`the sandbox created customer ${externalId} without an id`);
  await post(ramp, '/sandbox/crypto-address/create', { customerId, currency: 'USDT', network: 'ETH', address: WALLET });
  await post(ramp, '/sandbox/bank-account/create', { customerId, currency: 'AUD', bankName: 'Bench Bank', accountNo: BANK_ACCOUNT_NO, swift: 'BENCAU2S' });
}

/** The customer pays 100 AUD into the virtual account and sends 50 USDT to the deposit address. */
export async function sendDeposits(ramp: RampClient, accounts: { virtualAccountId: string; depositAddressId: string }): Promise<void> {
  await post(ramp, '/sandbox/deposit/simulate', { virtualAccountId: accounts.virtualAccountId, amount: '100.00', currency: 'AUD', sender: AUD_SOURCE });
  await post(ramp, '/sandbox/deposit/simulate', { depositAddressId: accounts.depositAddressId, amount: '50.00', currency: 'USDT', sender: CRYPTO_SENDER });
}
