/**
 * The journey's registration of a customer's exit accounts (POST /crypto-address/add,
 * /bank-account/add), each looked up first, so a retry (after a crash or an outcome-unknown add,
 * once that add has settled: creates.ts) finds the account instead of adding it twice.
 */
import type { RampClient } from '../ramp';
import type { AddBankAccountRequest, AddCryptoAddressRequest } from '../ramp/schemas';
import { findBankAccountId, findCryptoAddressId } from './exit-account-lookup';
import { asCreate } from './creates';
import { DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS, type FailureOptions } from './failures';

export function createExitAccountActivities(
  ramp: RampClient,
  failureOptions: FailureOptions = { outcomeUnknownRetryDelayMs: DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS },
) {
  /** The id the add answered with, or (its answer's shape being our assumption) the one a look-up finds. */
  async function added(
    answer: { id?: string | undefined },
    lookUp: () => Promise<string | null>,
    what: string,
  ): Promise<string> {
    const id = answer.id ?? (await lookUp());
    if (!id) throw new Error(`the service accepted the ${what} but does not find it`);
    return id;
  }

  return {
    /** The service's id of the customer's wallet, added only when the service has none with this address and network. */
    async ensureCryptoAddress(request: AddCryptoAddressRequest): Promise<string> {
      return asCreate(async () => {
        const lookUp = () =>
          findCryptoAddressId(ramp, {
            customerId: request.customerId,
            address: request.address,
            network: request.network,
          });
        return (await lookUp()) ?? added(await ramp.cryptoAddresses.add(request), lookUp, 'crypto address');
      }, failureOptions);
    },

    /** The service's id of the customer's bank account, added only when the service has none with this account number. */
    async ensureBankAccount(request: AddBankAccountRequest): Promise<string> {
      return asCreate(async () => {
        const lookUp = () => findBankAccountId(ramp, { customerId: request.customerId, accountNo: request.accountNo });
        return (await lookUp()) ?? added(await ramp.bankAccounts.add(request), lookUp, 'bank account');
      }, failureOptions);
    },
  };
}

export type ExitAccountActivities = ReturnType<typeof createExitAccountActivities>;
