/**
 * The partner-side accounts and the timings test journeys use. Kept free of vitest's `inject`, so
 * suites that start their own servers (test/faults) share them with the `temporal` project's harness.
 */
import type { SandboxControl } from './sandbox';

/** Test timings: seconds where production waits minutes or days. */
export const FAST_TIMINGS = {
  pollIntervalSeconds: 1,
  // Every second, without backoff (test/workflows/poll-backoff.temporal.test.ts tests the backoff).
  pollBackoffCapSeconds: 1,
  kycDeadlineSeconds: 120,
  accountsDeadlineSeconds: 120,
};

/** The deposit workflows' timings in tests (the worker starts deposits with them). */
export const FAST_DEPOSIT_TIMINGS = {
  pollIntervalSeconds: 1,
  pollBackoffCapSeconds: 1,
  stepDeadlineSeconds: 120,
  notFoundGraceSeconds: 1,
};

export const TEST_WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
export const TEST_BANK_ACCOUNT_NO = '987654321';
export const TEST_AUD_SOURCE = { bsbNumber: '062000', accountNumber: '12345678', accountName: 'Ada Lovelace' };
export const TEST_ONRAMP = {
  currency: 'AUD',
  cryptoAddress: { address: TEST_WALLET, network: 'ETH' },
  audSourceAccount: TEST_AUD_SOURCE,
};
export const TEST_OFFRAMP = { currency: 'USDT', network: 'ETH', bankAccount: { accountNo: TEST_BANK_ACCOUNT_NO } };

/** What a partner does in the service's dashboard once the customer exists: register its own accounts. */
export async function registerTestExits(control: SandboxControl, customerId: string): Promise<void> {
  await control.registerCryptoAddress({ customerId, currency: 'USDT', network: 'ETH', address: TEST_WALLET });
  await control.registerBankAccount({
    customerId,
    currency: 'AUD',
    bankName: 'Test Bank',
    accountNo: TEST_BANK_ACCOUNT_NO,
    swift: 'TESTAU2S',
  });
}
