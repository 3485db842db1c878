/**
 * The activities: one per service operation the workflows need, each a thin wrapper around the
 * signed client. Every activity that creates something looks it up first, so a retry (after a
 * timeout, a crash, or an outcome-unknown POST) never creates it twice; and it runs as a create
 * (creates.ts), so that retry looks up only once a request still held by the service has settled.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { RampClient } from '../ramp';
import { attachmentStoreFromEnv, checkOut, type AttachmentStore } from '../attachments';
import { type AttachmentReference, type DepositSummary, journeyWorkflowId } from '../workflows/common/messages';
import { depositKindOf } from '../workflows/common/records';
import type { AudSourceAccount, CustomerDetails } from '../workflows/schemas';
import type {
  CustomerRecord,
  DepositAddressRecord,
  DepositRecord,
  PaymentRecord,
  TradeRecord,
  VirtualAccountRecord,
  WhitelistEntryRecord,
} from '../workflows/common/records';
import { findFlow } from './flow-lookup';
import { findTradeOfDeposit } from './trade-lookup';
import { indexedJourneyOf } from './customer-journey-lookup';
import { offerReport } from './journey-reports';
import {
  findBankAccountId,
  findCryptoAddressId,
  type BankAccountLookup,
  type CryptoAddressLookup,
} from './exit-account-lookup';
import { asCreate } from './creates';
import { asActivity, DEFAULT_FAILURE_OPTIONS, isNotFound, type FailureOptions } from './failures';
import {
  customerRecord,
  depositAddressRecord,
  depositRecord,
  paymentRecord,
  tradeRecord,
  virtualAccountRecord,
  whitelistEntryRecord,
} from './records';

export interface OnrampSetup {
  customerId: string;
  currency: string;
  cryptoAddressId: string;
}

export interface OfframpSetup {
  customerId: string;
  currency: string;
  network: string;
  bankAccountId: string;
}

/**
 * Whether a listed receiving account may be the customer's own: the list was asked for one customer,
 * but that filter is our request, the record's own `customerId` is the service's word. A record that
 * names another customer is never taken (the journey would show that customer's account details to
 * this one); a record that names no customer at all (the schema allows it for deposit addresses) is
 * taken as the filter placed it, as before.
 */
function namesCustomer(record: { customerId?: string | null }, customerId: string): boolean {
  return record.customerId == null || record.customerId === customerId;
}

/** How a record is read: a poll (a missing record may still appear) or a confirmation (it must exist). */
/** What a deposit's first look found (`firstLookAtDeposit`). */
export interface DepositFirstLook {
  deposit: DepositRecord;
  /** The journey rampflow's index holds for the record's customer; null for none; absent when the index did not answer. */
  indexedJourney?: string | null;
  /** Set when the journey took the deposit's first report. */
  reportTaken?: true;
}

export interface RecordRead {
  confirming?: boolean;
}

/**
 * The service answers a missing record with FAILED, which is otherwise retried; a confirmation of a
 * record an event named must not retry forever on a record that does not exist (a forged payload).
 */
async function missingIsFinal<T>(read: RecordRead, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (read.confirming && isNotFound(error))
      throw ApplicationFailure.nonRetryable(error instanceof Error ? error.message : String(error), 'NotFound');
    throw error;
  }
}

export function createRampActivities(
  ramp: RampClient,
  failureOptions: FailureOptions = DEFAULT_FAILURE_OPTIONS,
  /** Where submitted documents are read from by reference (the claim check). */
  attachmentStore: AttachmentStore = attachmentStoreFromEnv(),
) {
  /** Runs a call to the service; its errors become Temporal failures (see failures.ts). */
  const serviceCall = <T>(call: () => Promise<T>): Promise<T> => asActivity(call, failureOptions);
  const readDeposit = (depositId: string, read: RecordRead): Promise<DepositRecord> =>
    serviceCall(() => missingIsFinal(read, async () => depositRecord(await ramp.deposits.detail({ id: depositId }))));
  /** Runs a call that sends a POST: no two of its attempts overlap (creates.ts). */
  const createCall = <T>(call: () => Promise<T>): Promise<T> => asCreate(call, failureOptions);

  async function findCustomer(externalId: string) {
    try {
      return await ramp.customers.detail({ externalId });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  return {
    /** Looks the customer up by externalId and creates it only if absent. */
    async ensureCustomer(details: CustomerDetails): Promise<CustomerRecord> {
      return createCall(async () => {
        const existing = await findCustomer(details.externalId);
        if (existing) return customerRecord(existing);
        const created = await ramp.customers.create(details);
        // The create answer's shape is not shown: read the customer back for its status and kycLink.
        const customer = created.id
          ? await ramp.customers.detail({ id: created.id })
          : await findCustomer(details.externalId);
        if (!customer) throw new Error(`the service accepted customer ${details.externalId} but does not find it`);
        return customerRecord(customer);
      });
    },

    async getCustomer(customerId: string): Promise<CustomerRecord> {
      return serviceCall(async () => customerRecord(await ramp.customers.detail({ id: customerId })));
    },

    /** Finds the customer's onramp to the crypto address in `currency`, or creates it. */
    async ensureOnramp(setup: OnrampSetup): Promise<{ flowId: string; virtualAccountId: string }> {
      return createCall(async () => {
        const accounts = [];
        for await (const account of ramp.virtualAccounts.iterate({
          customerId: setup.customerId,
          currency: setup.currency,
          pageSize: 100,
        })) {
          if (namesCustomer(account, setup.customerId)) accounts.push(account);
        }
        const existing = await findFlow(ramp, 'ONRAMP', accounts, setup.cryptoAddressId);
        if (existing) return { flowId: existing.id, virtualAccountId: existing.from };
        const { id } = await ramp.autorampFlows.createOnramp({
          from: { customerId: setup.customerId, currency: setup.currency },
          to: setup.cryptoAddressId,
        });
        const flow = await ramp.autorampFlows.detail({ id });
        return { flowId: id, virtualAccountId: flow.from };
      });
    },

    /** Finds the customer's offramp of `currency` on `network` to the bank account, or creates it. */
    async ensureOfframp(setup: OfframpSetup): Promise<{ flowId: string; depositAddressId: string }> {
      return createCall(async () => {
        const addresses = [];
        for await (const address of ramp.depositAddresses.iterate({
          customerId: setup.customerId,
          currency: setup.currency,
          pageSize: 100,
        })) {
          if (namesCustomer(address, setup.customerId) && (!address.network || address.network === setup.network))
            addresses.push(address);
        }
        const existing = await findFlow(ramp, 'OFFRAMP', addresses, setup.bankAccountId);
        if (existing) return { flowId: existing.id, depositAddressId: existing.from };
        const { id } = await ramp.autorampFlows.createOfframp({
          from: { customerId: setup.customerId, currency: setup.currency, network: setup.network },
          to: setup.bankAccountId,
        });
        const flow = await ramp.autorampFlows.detail({ id });
        return { flowId: id, depositAddressId: flow.from };
      });
    },

    /** The service's id of the customer's crypto address, or null while it is not registered. */
    async findCryptoAddress(lookup: CryptoAddressLookup): Promise<string | null> {
      return serviceCall(() => findCryptoAddressId(ramp, lookup));
    },

    /** The service's id of the customer's bank account, or null while it is not registered. */
    async findBankAccount(lookup: BankAccountLookup): Promise<string | null> {
      return serviceCall(() => findBankAccountId(ramp, lookup));
    },

    async getVirtualAccount(lookup: { customerId: string; virtualAccountId: string }): Promise<VirtualAccountRecord> {
      return serviceCall(async () =>
        virtualAccountRecord(await ramp.virtualAccounts.detail({ id: lookup.virtualAccountId })),
      );
    },

    async getDepositAddress(lookup: { customerId: string; depositAddressId: string }): Promise<DepositAddressRecord> {
      return serviceCall(async () =>
        depositAddressRecord(await ramp.depositAddresses.detail({ id: lookup.depositAddressId })),
      );
    },

    /** Adds the source account to the AUD account's whitelist unless it is there; returns the whitelist. */
    async ensureAudWhitelist(request: {
      virtualAccountId: string;
      sourceAccount: AudSourceAccount;
    }): Promise<WhitelistEntryRecord[]> {
      return createCall(async () => {
        const { virtualAccountId, sourceAccount } = request;
        const listed = (entries: WhitelistEntryRecord[]) =>
          entries.some(
            (entry) =>
              entry.bsbNumber === sourceAccount.bsbNumber && entry.accountNumber === sourceAccount.accountNumber,
          );
        const before = (await ramp.virtualAccounts.audWhitelist({ virtualAccountId })).map(whitelistEntryRecord);
        if (listed(before)) return before;
        await ramp.virtualAccounts.createAudWhitelist({ virtualAccountId, sourceAccount });
        return (await ramp.virtualAccounts.audWhitelist({ virtualAccountId })).map(whitelistEntryRecord);
      });
    },

    async getAudWhitelist(virtualAccountId: string): Promise<WhitelistEntryRecord[]> {
      return serviceCall(async () =>
        (await ramp.virtualAccounts.audWhitelist({ virtualAccountId })).map(whitelistEntryRecord),
      );
    },

    /** The partner's externalId of a customer (so its journey), or null when the customer has none. */
    async findCustomerExternalId(customerId: string): Promise<string | null> {
      return serviceCall(async () => (await ramp.customers.detail({ id: customerId })).externalId ?? null);
    },

    async getDeposit(depositId: string, read: RecordRead = {}): Promise<DepositRecord> {
      return readDeposit(depositId, read);
    },

    /**
     * A deposit's first look, one activity for what took two activities and a local activity: its
     * record (a confirmation: a deposit the service does not have is final); whose it is in rampflow's
     * own index, the journey indexed with the customer that record names (customer-journey-lookup.ts);
     * and, when the workflow asks (`firstReportKey`), its first report to that journey, that the deposit
     * was RECEIVED. The owner comes from the service's record and rampflow's index, never from a
     * payload, as in the workflow.
     *
     * `indexedJourney` is null when the index holds no journey (or several) for the customer, absent
     * when the index did not answer (the workflow asks it again itself). `reportTaken` is set only when
     * the journey took the report; otherwise the workflow offers the same report (the same key) itself.
     * A REJECTED record is reported by no one yet: it may be a refund (workflows/deposit/run.ts).
     */
    async firstLookAtDeposit(depositId: string, firstReportKey?: string): Promise<DepositFirstLook> {
      const deposit = await readDeposit(depositId, { confirming: true });
      let indexedJourney: string | null;
      try {
        indexedJourney = (await indexedJourneyOf(Context.current().client, deposit.customerId)) ?? null;
      } catch {
        return { deposit };
      }
      if (firstReportKey === undefined || indexedJourney === null || deposit.status === 'REJECTED')
        return { deposit, indexedJourney };
      const received: DepositSummary = {
        depositId: deposit.id,
        kind: depositKindOf(deposit),
        stage: 'RECEIVED',
        amount: deposit.amount,
        currency: deposit.currency,
      };
      try {
        // Promptly: this activity holds a service slot, and the workflow offers an unanswered report again itself.
        const outcome = await offerReport(
          journeyWorkflowId(indexedJourney),
          { key: firstReportKey, progress: { summary: received } },
          { prompt: true },
        );
        return { deposit, indexedJourney, ...(outcome === 'taken' ? { reportTaken: true as const } : {}) };
      } catch {
        return { deposit, indexedJourney };
      }
    },

    /** The trade the service made of a confirmed deposit, if it has made one yet (a long list takes several attempts: trade-lookup.ts). */
    async findTradeForDeposit(lookup: { depositId: string; customerId: string }): Promise<TradeRecord | null> {
      return serviceCall(async () => {
        const trade = await findTradeOfDeposit(ramp, lookup);
        return trade === undefined ? null : tradeRecord(trade);
      });
    },

    /** `confirming`: the read confirms a record an event named, so a record the service does not have is final (NotFound). */
    async getTrade(tradeId: string, read: RecordRead = {}): Promise<TradeRecord> {
      return serviceCall(() =>
        missingIsFinal(read, async () => tradeRecord(await ramp.trades.detail({ id: tradeId }))),
      );
    },

    async getPayment(paymentId: string, read: RecordRead = {}): Promise<PaymentRecord> {
      return serviceCall(() =>
        missingIsFinal(read, async () => paymentRecord(await ramp.payments.detail({ id: paymentId }))),
      );
    },

    /** Uploads the document the service asked for on an ACTION_REQUIRED deposit, read from the attachment store by reference. */
    async submitDepositAttachment(request: { depositId: string; attachment: AttachmentReference }): Promise<void> {
      const content = await checkOut(attachmentStore, request.attachment);
      await createCall(() =>
        ramp.deposits.submitAttachmentFile({
          depositId: request.depositId,
          file: {
            filename: request.attachment.fileName,
            contentType: request.attachment.contentType,
            content,
          },
        }),
      );
    },
  };
}

export type RampActivities = ReturnType<typeof createRampActivities>;
