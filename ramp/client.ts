/**
 * RampClient: one method per endpoint of the ramp service, grouped by module.
 *
 * ```ts
 * const client = new RampClient({ baseUrl, apiKey, apiSecret });
 * const customer = await client.customers.detail({ externalId: 'user-42' });
 * for await (const deposit of client.deposits.iterate({ customerId: customer.id })) { ... }
 * await client.close();
 * ```
 */
import { RampHttpClient, type RampClientOptions } from './http-client';
import { BalanceModule, CallbackUrlModule, IpWhitelistModule, SubscribedEventsModule } from './modules/account';
import { AutorampFlowsModule } from './modules/autoramp-flows';
import { BankAccountsModule } from './modules/bank-accounts';
import { CryptoAddressesModule } from './modules/crypto-addresses';
import { CustomersModule } from './modules/customers';
import { DepositAddressesModule } from './modules/deposit-addresses';
import { DepositsModule } from './modules/deposits';
import { LegacyModule } from './modules/legacy';
import { LegacyDepositsModule } from './modules/legacy-deposits';
import { PaymentsModule } from './modules/payments';
import { SetupModule } from './modules/setup';
import { TradesModule } from './modules/trades';
import { VirtualAccountsModule } from './modules/virtual-accounts';
import type { Balance } from './schemas';

export class RampClient {
  /** The request layer, for calls outside the typed modules (the `rampflow api` command). */
  readonly http: RampHttpClient;
  readonly customers: CustomersModule;
  readonly virtualAccounts: VirtualAccountsModule;
  readonly cryptoAddresses: CryptoAddressesModule;
  readonly bankAccounts: BankAccountsModule;
  readonly depositAddresses: DepositAddressesModule;
  readonly autorampFlows: AutorampFlowsModule;
  readonly deposits: DepositsModule;
  readonly trades: TradesModule;
  readonly payments: PaymentsModule;
  readonly ipWhitelist: IpWhitelistModule;
  readonly callbackUrl: CallbackUrlModule;
  readonly subscribedEvents: SubscribedEventsModule;
  readonly legacy: LegacyModule;
  readonly legacyDeposits: LegacyDepositsModule;
  /** GET /health, /basic-info, /callback-url. */
  readonly setup: SetupModule;
  readonly #balance: BalanceModule;

  constructor(options: RampClientOptions) {
    this.http = new RampHttpClient(options);
    this.customers = new CustomersModule(this.http);
    this.virtualAccounts = new VirtualAccountsModule(this.http);
    this.cryptoAddresses = new CryptoAddressesModule(this.http);
    this.bankAccounts = new BankAccountsModule(this.http);
    this.depositAddresses = new DepositAddressesModule(this.http);
    this.autorampFlows = new AutorampFlowsModule(this.http);
    this.deposits = new DepositsModule(this.http);
    this.trades = new TradesModule(this.http);
    this.payments = new PaymentsModule(this.http);
    this.ipWhitelist = new IpWhitelistModule(this.http);
    this.callbackUrl = new CallbackUrlModule(this.http);
    this.subscribedEvents = new SubscribedEventsModule(this.http);
    this.legacy = new LegacyModule(this.http);
    this.legacyDeposits = new LegacyDepositsModule(this.http);
    this.setup = new SetupModule(this.http);
    this.#balance = new BalanceModule(this.http);
  }

  /** GET /balance: one entry per currency. */
  async balance(): Promise<Balance[]> {
    return this.#balance.get();
  }

  /** Closes the keep-alive connections the client opened. */
  async close(): Promise<void> {
    await this.http.close();
  }
}
