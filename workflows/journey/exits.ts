/**
 * The customer's exit accounts (the onramp's wallet, the offramp's bank account) as the journey finds
 * them at the service: looked up by address or account number, registered by the journey where the
 * input says the journey registers them (each add looked up first), or else awaited from the partner.
 *
 * Descriptions name the kind of account only, never its address or number: they end up in the Web
 * UI's current details and in parking reasons.
 */
import type { ExitAccountActivities, RampActivities } from '../../activities';
import { changeOptions, readOptions, serviceActivities } from '../common/calls';
import type { OfframpRequest, OnrampRequest } from '../schemas';
import type { ActivityInterfaceFor } from '@temporalio/workflow';

/** Where the journey keeps the service's ids of the exits it has found (its state's ramps). */
export interface ExitIds {
  onramp?: { cryptoAddressId?: string };
  offramp?: { bankAccountId?: string };
}

export class ExitAccounts {
  constructor(
    private readonly customerId: string,
    private readonly onramp: OnrampRequest | undefined,
    private readonly offramp: OfframpRequest | undefined,
    private readonly found: ExitIds,
    /** The priority of these calls: the journey's own, whose calls they are (workflows/common/calls.ts). */
    priorityKey?: () => number | undefined,
  ) {
    this.lookups = serviceActivities<RampActivities>(readOptions('look for an exit account'), priorityKey);
    this.registrations = serviceActivities<ExitAccountActivities>(
      changeOptions('register an exit account'),
      priorityKey,
    );
  }

  private readonly lookups: ActivityInterfaceFor<RampActivities>;
  private readonly registrations: ActivityInterfaceFor<ExitAccountActivities>;

  private walletMissing(): boolean {
    return !!this.onramp && !!this.found.onramp && !this.found.onramp.cryptoAddressId;
  }

  private bankAccountMissing(): boolean {
    return !!this.offramp && !!this.found.offramp && !this.found.offramp.bankAccountId;
  }

  /** What the service does not have yet, for the journey's current details. */
  missing(): string[] {
    return [
      this.walletMissing() ? "the customer's crypto address" : undefined,
      this.bankAccountMissing() ? "the customer's bank account" : undefined,
    ].filter((what): what is string => what !== undefined);
  }

  /** Asks the service for the exits not found yet (read-only; what the journey polls while it waits). */
  readonly look = async (): Promise<void> => this.lookFor({ own: true });

  /**
   * Asks only for the missing exits the partner registers: those the journey registers itself are
   * looked up as they are registered (registerOwn), so looking for them first would ask twice.
   */
  readonly lookForPartners = async (): Promise<void> => this.lookFor({ own: false });

  private async lookFor(include: { own: boolean }): Promise<void> {
    const wanted = (registeredBy: 'journey' | 'partner' | undefined) => include.own || registeredBy !== 'journey';
    if (this.onramp && this.walletMissing() && wanted(this.onramp.cryptoAddress.registeredBy)) {
      const { address, network } = this.onramp.cryptoAddress;
      const id = await this.lookups.findCryptoAddress.executeWithOptions(
        readOptions("look for the customer's crypto address"),
        [{ customerId: this.customerId, address, ...(network ? { network } : {}) }],
      );
      if (id) this.found.onramp!.cryptoAddressId = id;
    }
    if (this.offramp && this.bankAccountMissing() && wanted(this.offramp.bankAccount.registeredBy)) {
      const id = await this.lookups.findBankAccount.executeWithOptions(
        readOptions("look for the customer's bank account"),
        [{ customerId: this.customerId, accountNo: this.offramp.bankAccount.accountNo }],
      );
      if (id) this.found.offramp!.bankAccountId = id;
    }
  }

  /** Registers the missing exits the input says the journey registers; the partner's own are left to wait for. */
  async registerOwn(): Promise<void> {
    const wallet = this.onramp?.cryptoAddress;
    if (wallet?.registeredBy === 'journey' && this.walletMissing()) {
      this.found.onramp!.cryptoAddressId = await this.registrations.ensureCryptoAddress.executeWithOptions(
        changeOptions("look up or register the customer's crypto address"),
        [
          {
            customerId: this.customerId,
            address: wallet.address,
            network: wallet.network!,
            currency: wallet.currency!,
            ...(wallet.label ? { label: wallet.label } : {}),
          },
        ],
      );
    }
    const bank = this.offramp?.bankAccount;
    if (bank?.registeredBy === 'journey' && this.bankAccountMissing()) {
      const { registeredBy: _journey, currency, bankName, swift, beneficiaryName, ...optional } = bank;
      this.found.offramp!.bankAccountId = await this.registrations.ensureBankAccount.executeWithOptions(
        changeOptions("look up or register the customer's bank account"),
        [
          {
            ...optional,
            customerId: this.customerId,
            currency: currency!,
            bankName: bankName!,
            swift: swift!,
            beneficiaryName: beneficiaryName!,
          },
        ],
      );
    }
  }
}
