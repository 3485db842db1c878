/**
 * The partner's and its customers' side of many journeys, played from the service's records only (so
 * it carries on whatever is down on rampflow's side): registering each customer's exit accounts in
 * the service's dashboard, and paying in once each way as soon as the service shows the accounts
 * usable. Each deposit is made exactly once; what the partner made is the reference the final
 * comparison holds the service's records and the journeys to.
 */
import { RampError } from '../../../ramp';
import type { OfframpRequest, OnrampRequest } from '../../../workflows/schemas';
import type { TestSandbox } from '../../support/sandbox';
import {
  registerTestExits,
  TEST_AUD_SOURCE,
  TEST_OFFRAMP,
  TEST_ONRAMP,
  TEST_WALLET,
} from '../../support/test-journeys';

export interface Ramps {
  onramp: OnrampRequest;
  offramp: OfframpRequest;
}

/** An AUD onramp, whose whitelist only polls can see: for cases where journeys poll every second. */
export const AUD_RAMPS: Ramps = { onramp: TEST_ONRAMP, offramp: TEST_OFFRAMP };

/** A USD onramp needs no whitelist, so events alone can carry the journey: for events-only cases. */
export const USD_RAMPS: Ramps = {
  onramp: { currency: 'USD', cryptoAddress: { address: TEST_WALLET, network: 'ETH' } },
  offramp: TEST_OFFRAMP,
};

export const ONRAMP_AMOUNT = '100.00';
export const OFFRAMP_AMOUNT = '50.000000';
const CRYPTO_SENDER = { address: '0x0000000000000000000000000000000000000001', network: 'ETH' };

export interface PaidIn {
  onramp?: string;
  offramp?: string;
}

export class Partner {
  /** Deposits made, by the service's customer id. */
  readonly deposits = new Map<string, PaidIn>();
  private readonly exitsRegistered = new Set<string>();

  constructor(
    private readonly service: TestSandbox,
    private readonly externalIds: ReadonlySet<string>,
    private readonly ramps: Ramps,
  ) {}

  /**
   * Signs the customer up with the service before its journey starts (the journey then finds it by
   * externalId), exit accounts included: for events-only cases, where a journey would otherwise wait
   * a whole poll interval for exits registered after KYC.
   */
  async signUp(externalId: string): Promise<void> {
    const { id } = await this.service.ramp.customers.create({
      externalId,
      realName: 'Ada Lovelace',
      email: 'ada@example.com',
    });
    if (!id) throw new Error(`the service did not say the id of customer ${externalId}`);
    await registerTestExits(this.service.control, id);
    this.exitsRegistered.add(id);
  }

  /**
   * One pass over the partner's customers. A read the service fails (a case may be injecting faults)
   * ends the pass early; the next pass picks up where it stopped.
   */
  async playOnce(): Promise<void> {
    try {
      for await (const customer of this.service.ramp.customers.iterate({ pageSize: 100 })) {
        if (customer.externalId && this.externalIds.has(customer.externalId)) await this.playFor(customer.id);
      }
    } catch (error) {
      if (error instanceof RampError && error.method === 'GET') return;
      throw error;
    }
  }

  private async playFor(customerId: string): Promise<void> {
    const { ramp, control } = this.service;
    if (!this.exitsRegistered.has(customerId)) {
      await registerTestExits(control, customerId);
      this.exitsRegistered.add(customerId);
    }
    const paid = this.deposits.get(customerId) ?? {};
    this.deposits.set(customerId, paid);
    const { onramp } = this.ramps;
    if (!paid.onramp) {
      for await (const account of ramp.virtualAccounts.iterate({
        customerId,
        currency: onramp.currency,
        pageSize: 100,
      })) {
        if (account.status !== 'VERIFIED' || !(await this.mayPayInto(account.id))) continue;
        const sender = onramp.audSourceAccount ?? {
          accountNumber: TEST_AUD_SOURCE.accountNumber,
          accountName: TEST_AUD_SOURCE.accountName,
        };
        paid.onramp = (
          await control.simulateFiatDeposit({
            virtualAccountId: account.id,
            amount: ONRAMP_AMOUNT,
            currency: onramp.currency,
            sender,
          })
        ).id;
        break;
      }
    }
    if (!paid.offramp) {
      for await (const address of ramp.depositAddresses.iterate({
        customerId,
        currency: this.ramps.offramp.currency,
        pageSize: 100,
      })) {
        if (address.status !== 'APPROVED') continue;
        paid.offramp = (
          await control.simulateCryptoDeposit({
            depositAddressId: address.id,
            amount: OFFRAMP_AMOUNT,
            currency: this.ramps.offramp.currency,
            sender: CRYPTO_SENDER,
          })
        ).id;
        break;
      }
    }
  }

  /** An AUD account takes money only from a whitelisted sender, once the whitelist entry is active. */
  private async mayPayInto(virtualAccountId: string): Promise<boolean> {
    const source = this.ramps.onramp.audSourceAccount;
    if (!source) return true;
    const entries = await this.service.ramp.virtualAccounts.audWhitelist({ virtualAccountId });
    return entries.some(
      (entry) =>
        entry.bsbNumber === source.bsbNumber &&
        entry.accountNumber === source.accountNumber &&
        entry.accountStatus.toLowerCase() === 'active',
    );
  }
}
