/**
 * The journey registers the customer's exit accounts itself (POST /crypto-address/add,
 * /bank-account/add) when its input says so, on the real dev server against the sandbox: nobody
 * registers anything by other means, and an account the service already has is found, not added twice.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJourneyHarness, TEST_AUD_SOURCE, TEST_WALLET, type JourneyHarness } from '../support/journey-harness';

let h: JourneyHarness;

beforeAll(async () => {
  h = await startJourneyHarness();
}, 120_000);

afterAll(async () => {
  await h?.close();
});

const BANK_ACCOUNT = {
  accountNo: '20000012345678',
  currency: 'GBP' as const,
  bankName: 'Barclays',
  swift: 'BARCGB22',
  beneficiaryName: 'Ada Lovelace',
  bankCountry: 'GB',
};
const ONRAMP = {
  currency: 'AUD',
  cryptoAddress: { address: TEST_WALLET, network: 'ETH', currency: 'USDT' as const, registeredBy: 'journey' as const },
  audSourceAccount: TEST_AUD_SOURCE,
};
const OFFRAMP = {
  currency: 'USDT',
  network: 'ETH',
  bankAccount: { ...BANK_ACCOUNT, registeredBy: 'journey' as const },
};

async function exitsAtTheService(customerId: string) {
  return {
    wallets: (await h.ramp.cryptoAddresses.list({ customerId })).list,
    bankAccounts: (await h.ramp.bankAccounts.list({ customerId })).list,
  };
}

/** Plays the service's part (KYC and account approvals) until the journey is ACTIVE. */
async function untilActive(handle: Awaited<ReturnType<JourneyHarness['startJourney']>>) {
  const kyc = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
  await h.control.approveCustomer(kyc.customer.id!);
  const accounts = await h.waitForJourney(
    handle,
    (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.onramp?.virtualAccount && !!s.offramp?.depositAddress,
  );
  await h.control.approveVirtualAccount(accounts.onramp!.virtualAccount!.id);
  await h.control.approveDepositAddress(accounts.offramp!.depositAddress!.id);
  return h.waitForJourney(handle, (s) => s.stage === 'ACTIVE');
}

describe('a journey that registers the exit accounts', () => {
  it('adds the wallet and the bank account itself and sets up both ramps on them', async () => {
    const handle = await h.startJourney({ onramp: ONRAMP, offramp: OFFRAMP });
    const active = await untilActive(handle);
    const customerId = active.customer.id!;
    const { wallets, bankAccounts } = await exitsAtTheService(customerId);
    expect(
      wallets.map((wallet) => ({
        id: wallet.id,
        address: wallet.address,
        network: wallet.network,
        currency: wallet.currency,
      })),
    ).toEqual([{ id: active.onramp!.cryptoAddressId, address: TEST_WALLET, network: 'ETH', currency: 'USDT' }]);
    expect(
      bankAccounts.map((account) => ({
        id: account.id,
        accountNo: account.accountNo,
        currency: account.currency,
        swift: account.swift,
      })),
    ).toEqual([
      { id: active.offramp!.bankAccountId, accountNo: BANK_ACCOUNT.accountNo, currency: 'GBP', swift: 'BARCGB22' },
    ]);
    const flows = (await h.ramp.autorampFlows.list({})).list;
    expect(flows.find((flow) => flow.id === active.onramp!.flowId)?.to).toBe(active.onramp!.cryptoAddressId);
    expect(flows.find((flow) => flow.id === active.offramp!.flowId)?.to).toBe(active.offramp!.bankAccountId);
  });

  it('finds an account the service already has instead of adding it again', async () => {
    const externalId = `user-${randomUUID()}`;
    const { id: customerId } = await h.ramp.customers.create({
      externalId,
      realName: 'Ada Lovelace',
      email: 'ada@example.com',
    });
    const { id: existingBankAccount } = await h.ramp.bankAccounts.add({ customerId: customerId!, ...BANK_ACCOUNT });
    const handle = await h.startJourney({ customer: { externalId }, onramp: ONRAMP, offramp: OFFRAMP });
    const active = await untilActive(handle);
    expect(active.offramp!.bankAccountId).toBe(existingBankAccount);
    const { wallets, bankAccounts } = await exitsAtTheService(customerId!);
    expect(wallets).toHaveLength(1);
    expect(bankAccounts.map((account) => account.id)).toEqual([existingBankAccount]);
  });

  it('refuses, naming the fields, an input that asks the journey to register an account it cannot describe', async () => {
    await expect(
      h.startJourney({
        offramp: { currency: 'USDT', network: 'ETH', bankAccount: { accountNo: '1', registeredBy: 'journey' } },
      }),
    ).rejects.toThrow(/bankName/);
  });
});
